// Package acptest is a scripted fake Reasonix worker, wire-compatible with Reasonix 1.38.11, used
// by tests and by the demo.
package acptest

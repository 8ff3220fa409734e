// Package acp is the Agent Client Protocol v1 client for the Reasonix worker: it starts the worker
// process, drives its sessions and turns every inbound message into a typed event. It knows nothing
// of tasks.
package acp

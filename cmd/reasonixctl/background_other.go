//go:build !unix

package main

import "syscall"

// detached is the default elsewhere.
func detached() *syscall.SysProcAttr { return nil }

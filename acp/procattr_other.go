//go:build !linux

package acp

import "syscall"

// groupLeaderAttr puts the worker in its own process group.
func groupLeaderAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

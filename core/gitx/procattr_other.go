//go:build !linux

package gitx

import "syscall"

func childAttr() *syscall.SysProcAttr { return nil }

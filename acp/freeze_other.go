//go:build !linux

package acp

import (
	"errors"
	"syscall"
)

// freeze is a suspension; without /proc there is none.
type freeze struct{}

// suspend needs /proc to find the worker's processes.
func (p *process) suspend() (func(), error) {
	return nil, errors.New("acp: suspending a worker needs Linux's /proc")
}

func (p *process) thaw() {}

// signalInside has nothing to reach: the sandbox (bubblewrap) is Linux only.
func signalInside(int, syscall.Signal) {}

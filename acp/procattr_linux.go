package acp

import "syscall"

// groupLeaderAttr puts the worker in its own process group and has the kernel kill it when we
// die, even by SIGKILL; its descendants are left to the group kill (see LaunchConfig.Track).
func groupLeaderAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

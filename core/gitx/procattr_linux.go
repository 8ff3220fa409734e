package gitx

import "syscall"

// childAttr has the kernel kill a git process when we die, even by SIGKILL: a git left running
// after its owner could move a ref or write an index after the next owner has recovered the
// task. What a killed git leaves (a lock file) is stale by then, and recovery removes it.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

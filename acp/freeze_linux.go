package acp

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"reasonixctl/sandbox/procstat"
)

// suspendTimeout bounds how long Suspend waits for every process to stop: a process in an
// uninterruptible wait (a hung file system) stops only when the wait ends.
const suspendTimeout = 5 * time.Second

// freeze is one suspension: the processes it stopped, by pid and start time, so that a pid
// reused since is never continued.
type freeze struct {
	stopped map[int]string
	order   []int // as they were first stopped: parents before their children
	once    sync.Once
}

// ours reports whether f stopped the process pid that started at start.
func (f *freeze) ours(pid int, start string) bool {
	s, ok := f.stopped[pid]
	return ok && s == start
}

func (f *freeze) add(pid int, start string) {
	if _, ok := f.stopped[pid]; !ok && !slices.Contains(f.order, pid) {
		f.order = append(f.order, pid)
	}
	f.stopped[pid] = start
}

// pfForkNoExec is the kernel's PF_FORKNOEXEC: the process was forked and has not called exec.
const pfForkNoExec = 0x40

// threads reads the state of each thread of a process, cached for one pass over /proc: a
// process has stopped only when every one of its threads has (a thread in a system call stops
// when the call returns), and a vfork holds the one thread that made it.
type threads map[int][]byte

func (ts threads) of(pid int) []byte {
	if st, ok := ts[pid]; ok {
		return st
	}
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	entries, _ := os.ReadDir(dir)
	var st []byte
	for _, e := range entries {
		if _, f, ok := procstat.Read(dir + "/" + e.Name() + "/stat"); ok {
			st = append(st, f[procstat.State][0])
		}
	}
	ts[pid] = st
	return st
}

// stopped reports whether every thread of the process pid (e) is stopped or gone; without its
// threads' states (it is ending), the process's own state answers.
func (ts threads) stopped(pid int, e procEntry) bool {
	st := ts.of(pid)
	if len(st) == 0 {
		st = []byte{e.state}
	}
	for _, s := range st {
		if !stoppedState(s) && !gone(s) {
			return false
		}
	}
	return true
}

// vforkHeld reports whether e may be the child of a vfork (dash, posix_spawn and Go's os/exec
// all spawn so) that has not reached its exec yet: the parent's thread that made it then waits
// uninterruptibly (state D) and cannot act on its own SIGSTOP until the child execs or exits.
// Stopped there, the child would keep its parent from ever stopping.
func (ts threads) vforkHeld(e procEntry) bool {
	return e.flags&pfForkNoExec != 0 && bytes.IndexByte(ts.of(e.ppid), 'D') >= 0
}

// procEntry is what /proc/<pid>/stat says of one process.
type procEntry struct {
	comm       string
	state      byte
	ppid, pgrp int
	flags      uint64 // the kernel's PF_* flags
	start      string // start time in clock ticks since boot
}

// readProcs reads every process's stat. A process that ends while it is read is left out.
func readProcs() map[int]procEntry {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	out := make(map[int]procEntry, len(entries))
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		comm, f, ok := procstat.Read("/proc/" + e.Name() + "/stat")
		if !ok {
			continue
		}
		ppid, _ := strconv.Atoi(string(f[procstat.PPID]))
		pgrp, _ := strconv.Atoi(string(f[procstat.PGRP]))
		flags, _ := strconv.ParseUint(string(f[procstat.Flags]), 10, 64)
		out[pid] = procEntry{comm: comm, state: f[procstat.State][0], ppid: ppid, pgrp: pgrp, flags: flags, start: string(f[procstat.Start])}
	}
	return out
}

// workerTree lists the worker's processes, parents before their children: the leader, its
// descendants by parent pid, and the other members of its process group. A confined worker's
// processes all descend from the leader, the sandbox's outermost process: one that is orphaned
// is adopted by the first process of the sandbox's pid namespace. An unconfined worker's
// orphan is adopted outside; it is found only while it stays in the worker's group.
func workerTree(procs map[int]procEntry, leader int) []int {
	children := map[int][]int{}
	for pid, e := range procs {
		children[e.ppid] = append(children[e.ppid], pid)
	}
	seen := map[int]bool{}
	var order []int
	queue := []int{leader}
	for pid, e := range procs {
		if e.pgrp == leader && pid != leader {
			queue = append(queue, pid)
		}
	}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		if seen[pid] {
			continue
		}
		seen[pid] = true
		if _, ok := procs[pid]; ok {
			order = append(order, pid)
		}
		queue = append(queue, children[pid]...)
	}
	return order
}

// signalInside sends sig to every process of a confined worker but the sandbox's outermost one.
func signalInside(leader int, sig syscall.Signal) {
	procs := readProcs()
	for _, pid := range workerTree(procs, leader) {
		if pid != leader {
			_ = syscall.Kill(pid, sig)
		}
	}
}

func stoppedState(s byte) bool { return s == 'T' || s == 't' }

func gone(s byte) bool { return s == 'Z' || s == 'X' }

// suspend stops every process of the worker with SIGSTOP and returns once a whole pass over
// /proc finds each of them stopped, every thread: a process that forked before its stop took
// effect has its child found and stopped in the next pass, and a child caught between vfork and
// exec is let go on to its exec first (vforkHeld). On failure it continues what it stopped.
func (p *process) suspend() (func(), error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.frozen != nil {
		return nil, errors.New("acp: the worker is suspended already")
	}
	select {
	case <-p.exited:
		return func() {}, nil
	default:
	}
	f := &freeze{stopped: map[int]string{}}
	leader := p.cmd.Process.Pid
	deadline := time.Now().Add(suspendTimeout)
	pause := time.Millisecond
	for {
		procs := readProcs()
		if procs == nil {
			p.cont(f)
			return nil, errors.New("acp: suspending the worker: /proc cannot be read")
		}
		settled := true
		var waiting []string
		ts := threads{}
		for _, pid := range workerTree(procs, leader) {
			e := procs[pid]
			if gone(e.state) {
				continue // a zombie runs nothing
			}
			if ts.stopped(pid, e) {
				if ts.vforkHeld(e) && f.ours(pid, e.start) {
					// Stopped between vfork and exec: let it reach its exec, so that its parent
					// can stop; it is stopped again once it has.
					_ = syscall.Kill(pid, syscall.SIGCONT)
					delete(f.stopped, pid)
					settled = false
				}
				continue // a process stopped already (by us or anyone) stays so
			}
			settled = false
			switch {
			case f.ours(pid, e.start):
				// Signalled; the stop has not taken effect yet.
			case ts.vforkHeld(e):
				// Stopped once it has reached its exec.
			default:
				if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil && !errors.Is(err, syscall.ESRCH) {
					p.cont(f)
					return nil, fmt.Errorf("acp: suspending the worker: process %d: %w", pid, err)
				}
				f.add(pid, e.start)
				continue
			}
			waiting = append(waiting, fmt.Sprintf("%d (%s, state %c)", pid, e.comm, e.state))
		}
		if settled {
			break
		}
		if time.Now().After(deadline) {
			p.cont(f)
			return nil, fmt.Errorf("acp: suspending the worker: processes %s did not stop within %s", strings.Join(waiting, ", "), suspendTimeout)
		}
		// No event says that another process has stopped: look again shortly.
		time.Sleep(pause)
		pause = min(2*pause, 16*time.Millisecond)
	}
	p.frozen = f
	return func() { p.resume(f) }, nil
}

// resume continues what f stopped, once.
func (p *process) resume(f *freeze) {
	p.cont(f)
	p.mu.Lock()
	if p.frozen == f {
		p.frozen = nil
	}
	p.mu.Unlock()
}

// thaw continues the current suspension, if any.
func (p *process) thaw() {
	p.mu.Lock()
	f := p.frozen
	p.mu.Unlock()
	if f != nil {
		p.resume(f)
	}
}

// cont sends SIGCONT to each process f stopped that is still the same process, children first,
// so that no parent runs to find a child still stopped by us.
func (p *process) cont(f *freeze) {
	f.once.Do(func() {
		procs := readProcs()
		for i := len(f.order) - 1; i >= 0; i-- {
			pid := f.order[i]
			// Without /proc the pid cannot be checked; continuing a reused pid is the lesser harm
			// than leaving the worker stopped.
			if e, ok := procs[pid]; procs == nil || ok && e.start == f.stopped[pid] {
				_ = syscall.Kill(pid, syscall.SIGCONT)
			}
		}
	})
}

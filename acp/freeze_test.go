//go:build linux

package acp

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"reasonixctl/sandbox"
)

// startTickerWorker starts the helper agent in mode (see startTicker), confined in a sandbox
// when confined is set, and returns it with the file its background process appends to, once
// that file grows.
func startTickerWorker(t *testing.T, mode string, confined bool) (*Worker, string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	wt := t.TempDir()
	ticks := filepath.Join(wt, "ticks")
	cfg := LaunchConfig{
		Bin: self, Dir: wt,
		Env: []string{"ACP_HELPER_AGENT=1", "ACP_HELPER_MODE=" + mode, "ACP_HELPER_TICK=" + ticks},
	}
	if confined {
		r := &sandbox.Runner{}
		if p := r.Probe(); !p.Available {
			t.Skipf("bubblewrap does not work here: %s", p.Detail)
		}
		cfg.Confine = func(argv, env []string) ([]string, []string, error) {
			cmd, err := r.Confine(sandbox.Spec{Argv: argv, Worktree: wt, Env: map[string]string{"PATH": "/usr/bin:/bin"}})
			return cmd, env, err
		}
	}
	w, err := Start(testCtx(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	if _, err := w.NewSession(testCtx(t), SessionConfig{Cwd: wt}); err != nil {
		t.Fatal(err)
	}
	waitGrows(t, ticks, 0)
	return w, ticks
}

func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}

// waitGrows waits until path is larger than from, polling it (a file's growth has no event) up
// to a deadline.
func waitGrows(t *testing.T, path string, from int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for fileSize(path) <= from {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not grow past %d bytes within 10 s", path, from)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// treeStates is every process of the worker with its state letter: 'T' when every one of its
// threads is stopped, else the state of its main thread, or of its first thread that is not.
func treeStates(leader int) map[int]byte {
	procs := readProcs()
	ts := threads{}
	out := map[int]byte{}
	for _, pid := range workerTree(procs, leader) {
		e := procs[pid]
		out[pid] = e.state
		if ts.stopped(pid, e) {
			if !gone(e.state) {
				out[pid] = 'T'
			}
			continue
		}
		for _, st := range ts.of(pid) {
			if !stoppedState(st) && !gone(st) {
				out[pid] = st
				break
			}
		}
	}
	return out
}

// whileFrozen runs, outside the worker, a loop that appends a line every 10 ms, twenty times, and
// waits for it to end: time enough for the frozen loop to have written as often.
func whileFrozen(t *testing.T) {
	t.Helper()
	ctl := filepath.Join(t.TempDir(), "control")
	cmd := exec.Command("/bin/sh", "-c", `for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do echo x >> "$0"; sleep 0.01; done`, ctl)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("control loop: %v %s", err, out)
	}
	if n := bytes.Count(mustRead(t, ctl), []byte("\n")); n != 20 {
		t.Fatalf("the control loop wrote %d lines", n)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A process the worker left running in the background cannot append to a file while the worker
// is suspended, and appends again after resume. Confined, the process is found even after it
// left the worker's process tree and group, as a daemon does: the sandbox's pid namespace adopts
// it below the sandbox's outermost process.
func TestSuspendFreezesWhatTheWorkerLeftRunning(t *testing.T) {
	for _, tc := range []struct {
		name, mode string
		confined   bool
	}{
		{"unconfined child", "ticker", false},
		{"confined child", "ticker", true},
		{"confined daemon", "orphan", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, ticks := startTickerWorker(t, tc.mode, tc.confined)
			resume, err := w.Suspend()
			if err != nil {
				t.Fatal(err)
			}
			states := treeStates(w.Pid())
			for pid, st := range states {
				if !stoppedState(st) && !gone(st) {
					t.Errorf("process %d of the worker is in state %c after Suspend returned", pid, st)
				}
			}
			if len(states) < 3 {
				t.Errorf("only %d processes in the worker's tree: %v", len(states), states)
			}
			frozen := fileSize(ticks)
			whileFrozen(t)
			if got := fileSize(ticks); got != frozen {
				t.Fatalf("the background process wrote while the worker was suspended: %d bytes, then %d", frozen, got)
			}
			if _, err := w.Suspend(); err == nil {
				t.Error("a second Suspend before resume succeeded")
			}
			resume()
			resume() // once only; the second call does nothing
			waitGrows(t, ticks, frozen)
			// /proc may show a process continued a moment ago as stopped until it next runs.
			deadline := time.Now().Add(5 * time.Second)
			for {
				var still []int
				for pid, st := range treeStates(w.Pid()) {
					if stoppedState(st) {
						still = append(still, pid)
					}
				}
				if len(still) == 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("processes %v are still stopped after resume", still)
				}
				runtime.Gosched()
			}
		})
	}
}

// A shell that starts one program after another (dash does so with vfork) is caught between
// a vfork and its exec again and again: the child stopped there would hold its parent in an
// uninterruptible wait, unable to stop. Every Suspend still stops everything, and every resume
// lets it run on.
func TestSuspendCatchesAShellBetweenVforkAndExec(t *testing.T) {
	for _, confined := range []bool{false, true} {
		t.Run(fmt.Sprintf("confined=%v", confined), func(t *testing.T) {
			w, ticks := startTickerWorker(t, "spawner", confined)
			for i := range 100 {
				resume, err := w.Suspend()
				if err != nil {
					t.Fatalf("suspension %d: %v", i, err)
				}
				for pid, st := range treeStates(w.Pid()) {
					if !stoppedState(st) && !gone(st) {
						t.Fatalf("suspension %d: process %d is in state %c", i, pid, st)
					}
				}
				frozen := fileSize(ticks)
				resume()
				waitGrows(t, ticks, frozen)
			}
		})
	}
}

// Close ends a suspended worker at once, with SIGTERM rather than the SIGKILL after the grace
// period, and nothing of its sandbox outlives it.
func TestCloseEndsASuspendedConfinedWorker(t *testing.T) {
	w, _ := startTickerWorker(t, "orphan", true)
	pids := treeStates(w.Pid())
	if _, err := w.Suspend(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d >= killGrace {
		t.Errorf("closing a suspended worker took %s: it did not act on SIGTERM", d)
	}
	waitAllGone(t, pids)
}

// The group Track reports is the sandbox's outermost process's. Killing it, as the next owner
// does after a crash (sandbox.Ledger.Reap), ends everything inside: the pid namespace's first
// process dies with its parent, and the namespace with it.
func TestKillingTheTrackedGroupEndsTheSandbox(t *testing.T) {
	self, _ := os.Executable()
	wt := t.TempDir()
	r := &sandbox.Runner{}
	if p := r.Probe(); !p.Available {
		t.Skipf("bubblewrap does not work here: %s", p.Detail)
	}
	tracked := make(chan int, 1)
	w, err := Start(testCtx(t), LaunchConfig{
		Bin: self, Dir: wt,
		Env: []string{"ACP_HELPER_AGENT=1", "ACP_HELPER_MODE=orphan", "ACP_HELPER_TICK=" + filepath.Join(wt, "ticks")},
		Confine: func(argv, env []string) ([]string, []string, error) {
			cmd, err := r.Confine(sandbox.Spec{Argv: argv, Worktree: wt, Env: map[string]string{"PATH": "/usr/bin:/bin"}})
			return cmd, env, err
		},
		Track: func(pgid int) func() {
			tracked <- pgid
			return func() {}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	if _, err := w.NewSession(testCtx(t), SessionConfig{Cwd: wt}); err != nil {
		t.Fatal(err)
	}
	waitGrows(t, filepath.Join(wt, "ticks"), 0)
	pgid := <-tracked
	if pgid != w.Pid() {
		t.Fatalf("tracked group %d, the sandbox's outermost process is %d", pgid, w.Pid())
	}
	pids := treeStates(pgid)
	if len(pids) < 4 {
		t.Fatalf("the sandbox holds %d processes, want bwrap, its namespace's first process, the worker and the daemon: %v", len(pids), pids)
	}
	if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitAllGone(t, pids)
}

// waitAllGone waits until none of pids is a live process, polling /proc (the death of a process
// that is not our child has no event) up to a deadline.
func waitAllGone(t *testing.T, pids map[int]byte) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var left []string
		for pid := range pids {
			if processAlive(pid) {
				cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
				left = append(left, fmt.Sprintf("%d %q", pid, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("still alive 10 s later: %v", left)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A worker connected over pipes has no process: Suspend succeeds and does nothing, so that the
// engine can call it on any worker.
func TestSuspendOfAPipeWorkerDoesNothing(t *testing.T) {
	w := &Worker{}
	resume, err := w.Suspend()
	if err != nil || resume == nil {
		t.Fatalf("Suspend: resume %v, err %v", resume != nil, err)
	}
	resume()
}

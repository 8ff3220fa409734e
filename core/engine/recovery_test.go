package engine

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"reasonixctl/core"
	"reasonixctl/core/gitx"
	"reasonixctl/store"
)

// restart closes the harness's engine and opens a new one on the same state directory, as the
// next owner after a crash would.
func (h *harness) restart() {
	h.t.Helper()
	h.e.Close()
	e, err := Open(Config{StateDir: h.state, Mode: "test", Worker: inProcessWorker(nil)})
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { e.Close() })
	h.e = e
}

// rewrite changes a stored record behind the engine's back, as a crash at some step would have
// left it.
func (h *harness) rewrite(id string, f func(r *taskRecord)) {
	h.t.Helper()
	if _, err := h.e.store.Update(id, func(cur []byte, _ bool) ([]byte, []store.NewEvent, error) {
		r, err := decodeRecord(cur)
		if err != nil {
			return nil, nil, err
		}
		f(r)
		return r.encode(), nil, nil
	}); err != nil {
		h.t.Fatal(err)
	}
}

// A finalize killed after its commit moved the branch, before the completion was stored: the
// next start rolls the commit back and the task is in review again, at the same revision, so the
// supervisor's approval still applies.
func TestRestartDuringCommitRollsBackAndFinalizesAgain(t *testing.T) {
	h := newHarness(t, nil)
	res, err := h.delegate("landed")
	if err != nil || res.State != core.StateReviewRequired {
		t.Fatalf("%v %+v", err, res.TaskView)
	}
	r, _ := h.e.load("landed")
	if _, err := h.e.update("landed", func(r *taskRecord) ([]newEvent, error) {
		ev, err := setState(r, core.StateVerifying, "committing", "")
		return []newEvent{ev}, err
	}); err != nil {
		t.Fatal(err)
	}
	landed, err := gitx.Commit(context.Background(), gitx.CommitRequest{
		Worktree: h.e.worktreeOf(r), Tree: r.ReviewTreeHash, Files: r.ChangedFiles, Message: "landed: unrecorded",
		Author: gitx.Identity{Name: r.AuthorName, Email: r.AuthorEmail},
	})
	if err != nil {
		t.Fatal(err)
	}
	gitDir := git(t, r.Worktree, "rev-parse", "--absolute-git-dir")
	if err := os.WriteFile(filepath.Join(gitDir, "index.lock"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	before := sourceFingerprint(t, h.repo)

	h.restart()
	d, err := h.e.Get(context.Background(), "landed")
	if err != nil {
		t.Fatal(err)
	}
	v := d.View
	if v.State != core.StateReviewRequired || v.Phase != core.PhaseRepairRequired || !strings.Contains(v.Reason, "rolled back") ||
		v.ReviewRevision != res.ReviewRevision || v.ReviewTreeHash != res.ReviewTreeHash {
		t.Fatalf("after restart: %+v", v)
	}
	if !strings.Contains(v.Reason, landed.Commit) {
		t.Fatalf("the reason does not name the rolled-back commit %s: %s", landed.Commit, v.Reason)
	}
	if at := git(t, h.repo, "rev-parse", "reasonix/landed"); at != r.BaseCommit {
		t.Fatalf("branch at %s, base %s", at, r.BaseCommit)
	}
	fin, err := h.finalize(res.TaskView, "looks-right")
	if err != nil || fin.State != core.StateCompleted || fin.CommitHash == "" {
		t.Fatalf("finalize after restart: %v %+v", err, fin)
	}
	if after := sourceFingerprint(t, h.repo); after != before {
		t.Fatal("the source checkout changed")
	}
}

// A finalize killed in verification returns to review with nothing else changed.
func TestRestartDuringVerificationReturnsToReview(t *testing.T) {
	h := newHarness(t, nil)
	res, err := h.delegate("verifying")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.e.update("verifying", func(r *taskRecord) ([]newEvent, error) {
		ev, err := setState(r, core.StateVerifying, "preflight", "")
		return []newEvent{ev}, err
	}); err != nil {
		t.Fatal(err)
	}
	h.restart()
	d, _ := h.e.Get(context.Background(), "verifying")
	if d.View.State != core.StateReviewRequired || d.View.ReviewRevision != res.ReviewRevision || strings.Contains(d.View.Reason, "rolled back") {
		t.Fatalf("after restart: %+v", d.View)
	}
	if fin, err := h.finalize(res.TaskView, "looks-right"); err != nil || fin.State != core.StateCompleted {
		t.Fatalf("finalize after restart: %v %+v", err, fin)
	}
}

// A finalize killed while its checks ran had set the worktree's .git link aside: the next start
// writes it back, the task is in review at the same revision, and finalize completes.
func TestRestartDuringTheChecksRestoresTheGitLink(t *testing.T) {
	h := newHarness(t, nil)
	res, err := h.delegate("checking")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.e.update("checking", func(r *taskRecord) ([]newEvent, error) {
		ev, err := setState(r, core.StateVerifying, "preflight", "")
		return []newEvent{ev}, err
	}); err != nil {
		t.Fatal(err)
	}
	r, _ := h.e.load("checking")
	if _, err := gitx.SetLinkAside(h.e.worktreeOf(r)); err != nil {
		t.Fatal(err)
	}
	h.restart()
	d, _ := h.e.Get(context.Background(), "checking")
	if d.View.State != core.StateReviewRequired || d.View.ReviewRevision != res.ReviewRevision {
		t.Fatalf("after restart: %+v", d.View)
	}
	if err := gitx.CheckLink(h.e.worktreeOf(r)); err != nil {
		t.Fatalf("the link was not restored: %v", err)
	}
	if fin, err := h.finalize(res.TaskView, "looks-right"); err != nil || fin.State != core.StateCompleted {
		t.Fatalf("finalize after restart: %v %+v", err, fin)
	}
}

// A delegate killed while provisioning is undone at the next start, so the same delegate works.
func TestRestartDuringProvisioningUndoesTheTask(t *testing.T) {
	for _, phase := range []string{"creating_worktree", "starting_reasonix"} {
		h := newHarness(t, nil)
		if _, err := h.delegate("provisioned"); err != nil {
			t.Fatal(err)
		}
		h.rewrite("provisioned", func(r *taskRecord) { r.State, r.Phase = core.StateProvisioning, phase })
		r, _ := h.e.load("provisioned")
		h.restart()
		if _, err := h.e.Get(context.Background(), "provisioned"); core.AsError(err).Code != core.CodeTaskNotFound {
			t.Fatalf("%s: the task survived: %v", phase, err)
		}
		if out := git(t, h.repo, "branch", "--list", "reasonix/*"); out != "" {
			t.Fatalf("%s: branch left: %s", phase, out)
		}
		if _, err := os.Stat(r.Worktree); !os.IsNotExist(err) {
			t.Fatalf("%s: worktree left: %v", phase, err)
		}
		res, err := h.delegate("provisioned")
		if err != nil || res.State != core.StateReviewRequired {
			t.Fatalf("%s: delegate again: %v %+v", phase, err, res.TaskView)
		}
	}
}

// The next owner ends the worker and verifier process groups a killed owner left behind.
func TestOpenEndsTheProcessGroupsOfAKilledOwner(t *testing.T) {
	state := t.TempDir()
	cmd := exec.Command("sleep", "600")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		close(exited)
	}()
	stat, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "stat"))
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	if err := os.MkdirAll(filepath.Join(state, "processes"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(state, "processes", strconv.Itoa(cmd.Process.Pid)), []byte(fields[19]), 0o600); err != nil {
		t.Fatal(err)
	}
	e, err := Open(Config{StateDir: state, Mode: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatal("the left process group still runs after Open")
	}
}

package engine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"reasonixctl/acp/acptest"
	"reasonixctl/core"
)

// testClock is a settable engine clock, so that ages are exact without waiting.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// completedTask delegates and finalizes one task.
func completedTask(t *testing.T, h *harness, id string) core.TaskView {
	t.Helper()
	res, err := h.delegate(id)
	if err != nil {
		t.Fatal(err)
	}
	v, err := h.finalize(res.TaskView, "looks-right")
	if err != nil || v.State != core.StateCompleted {
		t.Fatalf("finalize: %v %+v", err, v)
	}
	return v
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func storageOf(t *testing.T, h *harness, id string, all bool) (core.Storage, bool) {
	t.Helper()
	tasks, err := h.e.ListStored(context.Background(), core.ListFilter{All: all})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range tasks {
		if st.View.TaskID == id {
			return st.Storage, true
		}
	}
	return "", false
}

func TestArchiveCompletedTaskKeepsBranchAndCommit(t *testing.T) {
	h := newHarness(t, nil)
	v := completedTask(t, h, "arch")
	ctx := context.Background()
	wt := v.Worktree
	diff, logs := h.e.reviewDiffPath("arch"), filepath.Join(h.state, "verification", "arch")
	if !exists(wt) || !exists(diff) || !exists(logs) {
		t.Fatalf("before archive: worktree %v diff %v logs %v", exists(wt), exists(diff), exists(logs))
	}
	before := len(journal(t, h, "arch"))

	dry, err := h.e.Archive(ctx, "arch", false)
	if err != nil {
		t.Fatal(err)
	}
	if dry.Applied || dry.Worktree != wt || dry.Head != v.CommitHash || len(dry.Deleted) != 3 || dry.ArchivedAt != nil {
		t.Fatalf("dry run: %+v", dry)
	}
	if !exists(wt) || !exists(diff) || !exists(logs) || len(journal(t, h, "arch")) != before {
		t.Fatal("the dry run changed something")
	}
	if s, _ := storageOf(t, h, "arch", true); s != core.StorageLive {
		t.Fatalf("storage after dry run: %s", s)
	}

	res, err := h.e.Archive(ctx, "arch", true)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Applied || res.ArchivedAt == nil || res.Worktree != wt {
		t.Fatalf("apply: %+v", res)
	}
	if exists(wt) || exists(diff) || exists(logs) {
		t.Fatalf("after archive: worktree %v diff %v logs %v", exists(wt), exists(diff), exists(logs))
	}
	if got := git(t, h.repo, "rev-parse", "refs/heads/reasonix/arch"); got != v.CommitHash {
		t.Fatalf("branch at %s, want %s", got, v.CommitHash)
	}
	if strings.Contains(git(t, h.repo, "worktree", "list", "--porcelain"), wt) {
		t.Fatal("git still lists the worktree")
	}
	evs := journal(t, h, "arch")
	if len(evs) != before+1 || evs[len(evs)-1].Type != core.EventTaskArchived {
		t.Fatalf("journal: %d events, last %+v", len(evs), evs[len(evs)-1])
	}
	d, err := h.e.Get(ctx, "arch")
	if err != nil || d.View.State != core.StateCompleted || d.View.CommitHash != v.CommitHash {
		t.Fatalf("get after archive: %v %+v", err, d.View)
	}
	if s, ok := storageOf(t, h, "arch", true); !ok || s != core.StorageArchived {
		t.Fatalf("storage %q listed %v", s, ok)
	}
	if _, ok := storageOf(t, h, "arch", false); ok {
		t.Fatal("an archived task is listed without --all")
	}
	_, err = h.e.Archive(ctx, "arch", true)
	mustCode(t, err, core.CodeInvalidState)
}

func TestArchiveRefusesUnfinishedUnknownAndMalformedTasks(t *testing.T) {
	h := newHarness(t, writeTurn(acptest.Step{Hang: true}))
	bg := 0
	res, err := h.delegate("busy", func(r *core.DelegateRequest) { r.WaitTimeoutSeconds = &bg })
	if err != nil || res.State.Terminal() {
		t.Fatalf("%v %+v", err, res.TaskView)
	}
	ctx := context.Background()
	_, err = h.e.Archive(ctx, "busy", true)
	mustCode(t, err, core.CodeInvalidState)
	if !exists(res.Worktree) {
		t.Fatal("the refused archive removed the worktree")
	}
	_, err = h.e.Archive(ctx, "nope", false)
	mustCode(t, err, core.CodeTaskNotFound)
	_, err = h.e.Archive(ctx, "../x", false)
	mustCode(t, err, core.CodeInvalidRequest)
}

func TestArchiveRefusesDirtyWorktreeAndAcceptsItOnceClean(t *testing.T) {
	h := newHarness(t, nil)
	res, err := h.delegate("dirty")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	v, err := h.e.Control(ctx, core.Cancel{TaskID: "dirty"})
	if err != nil || v.State != core.StateCancelled {
		t.Fatalf("cancel: %v %+v", err, v)
	}
	// The worker's result.txt is still in the cancelled task's worktree.
	_, err = h.e.Archive(ctx, "dirty", false)
	ce := mustCode(t, err, core.CodeInvalidState)
	if paths, _ := ce.Details["paths"].([]string); !slices.Equal(paths, []string{"result.txt"}) {
		t.Fatalf("details %v", ce.Details)
	}
	_, err = h.e.Archive(ctx, "dirty", true)
	mustCode(t, err, core.CodeInvalidState)
	if !exists(filepath.Join(res.Worktree, "result.txt")) {
		t.Fatal("a refused archive lost the worker's file")
	}

	// Scratch files under .reasonix do not count; the worker's change does until it is removed.
	if err := os.Remove(filepath.Join(res.Worktree, "result.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(res.Worktree, ".reasonix"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(res.Worktree, ".reasonix", "notes.md"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := h.e.Archive(ctx, "dirty", true)
	if err != nil || !got.Applied || got.Head != git(t, h.repo, "rev-parse", "HEAD") {
		t.Fatalf("clean archive: %v %+v", err, got)
	}
	if exists(res.Worktree) {
		t.Fatal("worktree kept")
	}
}

func TestArchiveRefusesAWorktreeMovedOffTheRecordedCommit(t *testing.T) {
	h := newHarness(t, nil)
	v := completedTask(t, h, "moved")
	git(t, v.Worktree, "commit", "-q", "--allow-empty", "-m", "later")
	_, err := h.e.Archive(context.Background(), "moved", true)
	ce := mustCode(t, err, core.CodeInvalidState)
	if ce.Details["expected"] != v.CommitHash {
		t.Fatalf("details %v", ce.Details)
	}
}

func TestArchiveOfATaskWhoseWorktreeIsGone(t *testing.T) {
	h := newHarness(t, nil)
	v := completedTask(t, h, "gone")
	if err := os.RemoveAll(v.Worktree); err != nil {
		t.Fatal(err)
	}
	res, err := h.e.Archive(context.Background(), "gone", true)
	if err != nil || !res.Applied || res.Worktree != "" {
		t.Fatalf("%v %+v", err, res)
	}
	if strings.Contains(git(t, h.repo, "worktree", "list", "--porcelain"), v.Worktree) {
		t.Fatal("git still lists the removed worktree")
	}
}

func TestPruneRespectsTheAgeAndKeepsTheIdTaken(t *testing.T) {
	clock := &testClock{now: time.Now()}
	h := newHarness(t, nil, func(c *Config) { c.Now = clock.Now })
	v := completedTask(t, h, "old")
	ctx := context.Background()
	if _, err := h.e.Archive(ctx, "old", true); err != nil {
		t.Fatal(err)
	}
	const month = 30 * 24 * time.Hour

	clock.advance(month - time.Minute)
	if got, err := h.e.Prune(ctx, month, true); err != nil || len(got) != 0 {
		t.Fatalf("too young: %v %+v", err, got)
	}
	clock.advance(time.Minute)
	before := len(journal(t, h, "old"))
	dry, err := h.e.Prune(ctx, month, false)
	if err != nil || len(dry) != 1 || dry[0].TaskID != "old" || dry[0].Applied || dry[0].PrunedAt != nil {
		t.Fatalf("dry run: %v %+v", err, dry)
	}
	if s, _ := storageOf(t, h, "old", true); s != core.StorageArchived || len(journal(t, h, "old")) != before {
		t.Fatal("the dry run changed something")
	}

	got, err := h.e.Prune(ctx, month, true)
	if err != nil || len(got) != 1 || !got[0].Applied || got[0].PrunedAt == nil {
		t.Fatalf("apply: %v %+v", err, got)
	}
	evs := journal(t, h, "old")
	if len(evs) != 1 || evs[0].Type != core.EventTaskPruned || !strings.Contains(string(evs[0].Data), v.CommitHash) {
		t.Fatalf("tombstone journal: %+v", evs)
	}
	d, err := h.e.Get(ctx, "old")
	if err != nil || d.View.State != core.StateCompleted || d.View.CommitHash != v.CommitHash || d.View.Branch != "reasonix/old" {
		t.Fatalf("tombstone: %v %+v", err, d.View)
	}
	if s, ok := storageOf(t, h, "old", true); !ok || s != core.StorageTombstone {
		t.Fatalf("storage %q listed %v", s, ok)
	}
	if _, ok := storageOf(t, h, "old", false); ok {
		t.Fatal("a tombstone is listed without --all")
	}
	if again, err := h.e.Prune(ctx, 0, true); err != nil || len(again) != 0 {
		t.Fatalf("a tombstone was pruned again: %v %+v", err, again)
	}
	_, err = h.delegate("old")
	mustCode(t, err, core.CodeTaskConflict)
	_, err = h.e.Archive(ctx, "old", true)
	mustCode(t, err, core.CodeInvalidState)

	// The tombstone outlives a restart.
	h.e.Close()
	e2, err := Open(Config{StateDir: h.state, Mode: "test", Worker: inProcessWorker(nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	h.e = e2
	_, err = h.delegate("old")
	mustCode(t, err, core.CodeTaskConflict)
}

func TestPruneRefusesANegativeAge(t *testing.T) {
	h := newHarness(t, nil)
	_, err := h.e.Prune(context.Background(), -time.Hour, false)
	mustCode(t, err, core.CodeInvalidRequest)
}

package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"reasonixctl/core"
	"reasonixctl/core/gitx"
)

func (r *taskRecord) storage() core.Storage {
	switch {
	case r.PrunedAt != nil:
		return core.StorageTombstone
	case r.ArchivedAt != nil:
		return core.StorageArchived
	}
	return core.StorageLive
}

// ListStored lists tasks with their storage, newest first. Without f.All only live tasks that
// are not terminal are listed, as List does.
func (e *Engine) ListStored(ctx context.Context, f core.ListFilter) ([]core.StoredTask, error) {
	recs, err := e.store.List()
	if err != nil {
		return nil, core.Errorf(core.CodeInternalError, nil, "listing tasks: %w", err)
	}
	var out []core.StoredTask
	for _, rec := range recs {
		r, err := decodeRecord(rec.Data)
		if err != nil {
			continue
		}
		if !f.All && (r.State.Terminal() || r.storage() != core.StorageLive) {
			continue
		}
		out = append(out, core.StoredTask{View: r.view(), Storage: r.storage(), CreatedAt: r.CreatedAt, ArchivedAt: r.ArchivedAt, PrunedAt: r.PrunedAt})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedAt.After(out[j].CreatedAt) })
	return out, nil
}

// Archive removes a finished task's worktree, review diff and verification logs, keeping its
// branch, commit, record and journal. Only a terminal task whose worktree is gone, or clean at
// the recorded commit, can be archived: anything else would lose work. Without apply nothing
// changes and the result says what would be removed.
func (e *Engine) Archive(ctx context.Context, id string, apply bool) (core.ArchiveResult, error) {
	if !core.ValidTaskID(id) {
		return core.ArchiveResult{}, core.Errorf(core.CodeInvalidRequest, nil, "task id %q is malformed", id)
	}
	unlock := e.lockTask(id)
	defer unlock()
	r, err := e.load(id)
	if err != nil {
		return core.ArchiveResult{}, err
	}
	switch {
	case r.storage() != core.StorageLive:
		return core.ArchiveResult{}, core.Errorf(core.CodeInvalidState, &core.WrongStorage{Storage: r.storage()}, "task %s is already %s", id, r.storage())
	case !r.State.Terminal():
		return core.ArchiveResult{}, core.Errorf(core.CodeInvalidState, &core.WrongState{State: r.State},
			"task %s is %s; only a completed, failed, cancelled, closed or commit_failed task can be archived", id, r.State)
	}
	want := r.BaseCommit
	if r.State == core.StateCompleted {
		want = r.CommitHash
	}
	res := core.ArchiveResult{TaskID: id, State: r.State, Branch: r.Branch, Head: want}
	present, err := worktreePresent(r.Worktree)
	if err != nil {
		return core.ArchiveResult{}, core.Errorf(core.CodeInternalError, nil, "worktree %s: %w", r.Worktree, err)
	}
	if present {
		if err := checkArchivable(ctx, e.worktreeOf(r), want); err != nil {
			return core.ArchiveResult{}, err
		}
		res.Worktree = r.Worktree
	}
	for _, p := range []string{e.reviewDiffPath(id), filepath.Join(e.cfg.StateDir, "verification", id), e.taskCacheDir(id), e.workerDir(id)} {
		if _, err := os.Lstat(p); err == nil {
			res.Deleted = append(res.Deleted, p)
		}
	}
	if !apply {
		return res, nil
	}
	os.Remove(e.reviewIndexPath(id)) // the review's kept index, a cache of the commit (not listed)

	// A worker still detaching from the finished task must not hold the worktree.
	e.detach(id)
	if _, err := os.Stat(r.RepoCommonDir); present || err == nil {
		// Also when the folder is gone: git's bookkeeping of the worktree is pruned.
		if err := gitx.RemoveWorktree(ctx, e.worktreeOf(r)); err != nil {
			return core.ArchiveResult{}, wrapError(core.CodeInternalError, err, "removing worktree "+r.Worktree)
		}
	}
	for _, p := range res.Deleted {
		if err := os.RemoveAll(p); err != nil {
			return core.ArchiveResult{}, core.Errorf(core.CodeInternalError, nil, "removing %s: %w", p, err)
		}
	}
	now := e.now().UTC()
	if _, err := e.update(id, func(r *taskRecord) ([]newEvent, error) {
		r.ArchivedAt = &now
		return []newEvent{event(core.EventTaskArchived, core.TaskArchivedData{
			Worktree: res.Worktree, Branch: r.Branch, Head: want, Deleted: res.Deleted, ArchivedAt: core.FormatTime(now),
		})}, nil
	}); err != nil {
		return core.ArchiveResult{}, err
	}
	res.Applied, res.ArchivedAt = true, &now
	return res, nil
}

func worktreePresent(path string) (bool, error) {
	if path == "" {
		return false, nil
	}
	_, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// maxDirtyPaths bounds the paths an archive refusal names.
const maxDirtyPaths = 50

// checkArchivable refuses, as invalid_state, a worktree whose HEAD is not want or which has
// changes (untracked files under .reasonix, the worker's scratch space, excepted), or whose .git
// was rewritten (then its state is not known).
func checkArchivable(ctx context.Context, wt gitx.Worktree, want string) error {
	worktree := wt.Path
	head, dirty, err := gitx.Changes(ctx, wt, maxDirtyPaths)
	if err != nil {
		return core.Errorf(core.CodeInvalidState, &core.WorktreeRef{Worktree: worktree},
			"cannot read the worktree %s (%v); remove it by hand if it is broken, then archive again", worktree, err)
	}
	if head != want {
		return core.Errorf(core.CodeInvalidState, &core.WorktreeHead{Worktree: worktree, Head: head, Expected: want},
			"worktree %s is at %s, not at the task's recorded commit %s", worktree, head, want)
	}
	if len(dirty) > 0 {
		return core.Errorf(core.CodeInvalidState, &core.WorktreeDirty{Worktree: worktree, Paths: dirty},
			"worktree %s has changes that archiving would lose: %s", worktree, strings.Join(dirty, ", "))
	}
	return nil
}

// Prune replaces every task archived at least olderThan ago by a tombstone: the journal and the
// full record are deleted, and a minimal record with one task_pruned event keeps the id taken
// so that it is never given to another task. Without apply nothing changes. On an error the
// tasks pruned so far are returned with it.
func (e *Engine) Prune(ctx context.Context, olderThan time.Duration, apply bool) ([]core.PruneResult, error) {
	if olderThan < 0 {
		return nil, core.Errorf(core.CodeInvalidRequest, nil, "the age must not be negative")
	}
	recs, err := e.store.List()
	if err != nil {
		return nil, core.Errorf(core.CodeInternalError, nil, "listing tasks: %w", err)
	}
	cutoff := e.now().Add(-olderThan)
	eligible := func(r *taskRecord) bool {
		return r.storage() == core.StorageArchived && !r.ArchivedAt.After(cutoff)
	}
	var out []core.PruneResult
	for _, rec := range recs {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		r, err := decodeRecord(rec.Data)
		if err != nil || !eligible(r) {
			continue
		}
		res := core.PruneResult{TaskID: r.TaskID, State: r.State, Branch: r.Branch, CommitHash: r.CommitHash, ArchivedAt: *r.ArchivedAt}
		if apply {
			pruned, err := e.pruneOne(r.TaskID, eligible)
			if err != nil {
				return out, err
			}
			if pruned == nil {
				continue // changed since the listing
			}
			res.Applied, res.PrunedAt = true, pruned
		}
		out = append(out, res)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ArchivedAt.Before(out[j].ArchivedAt) })
	if apply && len(out) > 0 {
		// The deleted journals take disk space until compaction drops them; do it now, as a
		// prune is when someone asked for the space back.
		if err := e.store.Compact(); err != nil {
			e.log.Warn("compacting after prune", "err", err)
		}
	}
	return out, nil
}

// pruneOne swaps one archived task for its tombstone. It returns nil when the task is no longer
// eligible.
func (e *Engine) pruneOne(id string, eligible func(*taskRecord) bool) (*time.Time, error) {
	unlock := e.lockTask(id)
	defer unlock()
	r, err := e.load(id)
	if err != nil {
		if core.AsError(err).Code == core.CodeTaskNotFound {
			return nil, nil
		}
		return nil, err
	}
	if !eligible(r) {
		return nil, nil
	}
	dropped, _ := e.store.LastSeq(id)
	now := e.now().UTC()
	tomb := &taskRecord{
		Version: recordVersion, TaskID: r.TaskID, ContractHash: r.ContractHash,
		BaseRef: r.BaseRef, BaseCommit: r.BaseCommit, Branch: r.Branch, CommitHash: r.CommitHash,
		State: r.State, Phase: r.Phase, CreatedAt: r.CreatedAt, UpdatedAt: now,
		ArchivedAt: r.ArchivedAt, PrunedAt: &now,
	}
	if err := e.store.Delete(id); err != nil {
		return nil, e.storeError(id, err)
	}
	if err := e.create(tomb, []newEvent{event(core.EventTaskPruned, core.TaskPrunedData{
		State: r.State, Branch: r.Branch, CommitHash: r.CommitHash,
		ArchivedAt: core.FormatTime(*r.ArchivedAt), PrunedAt: core.FormatTime(now), EventsDropped: dropped,
	})}); err != nil {
		return nil, core.Errorf(core.CodeInternalError, &core.TaskRef{TaskID: id},
			"task %s was deleted but its tombstone could not be stored: %v", id, err)
	}
	return &now, nil
}

// Journal returns every event a task recorded, oldest first: what statistics are computed from.
func (e *Engine) Journal(ctx context.Context, id string) ([]core.Event, error) {
	if err := checkTaskID(id); err != nil {
		return nil, err
	}
	evs, err := e.store.Journal(id, 1, maxJournalRead)
	if err != nil {
		return nil, e.storeError(id, err)
	}
	out := make([]core.Event, len(evs))
	for i, ev := range evs {
		out[i] = toEvent(ev)
	}
	return out, nil
}

package engine

import (
	"bytes"
	"errors"
	"slices"
	"sync"

	"reasonixctl/core"
	"reasonixctl/core/guard"
	"reasonixctl/store"
)

// activeIndex mirrors, per repository, the tasks that still own part of it, and keeps the
// records under <state>/active current for the Codex guard hook, which must decide without the
// store another process owns. A task is active from its creation until it reaches a terminal
// state (or is archived, pruned or undone).
type activeIndex struct {
	mu    sync.Mutex
	repos map[string]*activeRepo // by repository id
	repo  map[string]string      // task id -> repository id
}

type activeRepo struct {
	root, commonDir string
	tasks           map[string]activeEntry
}

type activeEntry struct {
	task         guard.ActiveTask
	contractHash string
}

func (x *activeIndex) init() {
	x.repos = map[string]*activeRepo{}
	x.repo = map[string]string{}
}

// changed is called after every committed change of a task (record or deletion): it brings
// the task's active-task record up to date, then wakes waiters, so that whoever sees a state
// through the engine finds the guard already following it.
func (e *Engine) changed(id string) {
	e.syncActive(id, nil, nil)
	e.changes.notify(id)
}

// changedTo is changed after an update that left the task as r, stored as enc: when the guard
// already sees r as it is, nothing is read again. That is safe against concurrent updates
// because each commit's own call compares its result, and the last commit's result is the
// latest state.
func (e *Engine) changedTo(id string, r *taskRecord, enc []byte) {
	e.syncActive(id, r, enc)
	e.changes.notify(id)
}

// syncActive re-reads the task as committed and rewrites its repository's record when what the
// guard sees changed. Reading under the index lock, after the commit, means the last sync of
// concurrent updates always writes the latest committed state. When the stored bytes are still
// committedEnc, the caller's committed record is that state and is not decoded again.
func (e *Engine) syncActive(id string, committed *taskRecord, committedEnc []byte) {
	x := &e.active
	x.mu.Lock()
	defer x.mu.Unlock()
	if committed != nil && x.current(committed) {
		return
	}
	var r *taskRecord
	b, err := e.store.Get(id)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		e.log.Warn("active-task record not updated: reading the task failed", "task", id, "err", err)
		return
	case committed != nil && committedEnc != nil && bytes.Equal(b, committedEnc):
		r = committed
	default:
		if r, err = decodeRecord(b); err != nil {
			// Keep what the guard has: an unreadable record must not release the repository.
			e.log.Warn("active-task record not updated: the task is unreadable", "task", id, "err", err)
			return
		}
	}
	touched := map[string]bool{}
	if old, ok := x.repo[id]; ok && (r == nil || !isActive(r) || r.RepoID != old) {
		delete(x.repos[old].tasks, id)
		delete(x.repo, id)
		touched[old] = true
	}
	if r != nil && isActive(r) {
		if x.put(e, r) {
			touched[r.RepoID] = true
		}
	}
	for repoID := range touched {
		e.writeActive(repoID)
	}
}

// current reports whether the index already shows r as the guard should see it.
func (x *activeIndex) current(r *taskRecord) bool {
	repoID, indexed := x.repo[r.TaskID]
	if !isActive(r) {
		return !indexed
	}
	if !indexed || repoID != r.RepoID {
		return false
	}
	ent, ok := x.repos[repoID].tasks[r.TaskID]
	return ok && ent.follows(r)
}

// follows reports whether the entry says what r claims: its contract (the write scope), its
// worktree and its branch. Nothing else of a task is in the guard's record.
func (ent activeEntry) follows(r *taskRecord) bool {
	return ent.contractHash == r.ContractHash && ent.task.Worktree == r.Worktree && ent.task.Branch == r.Branch
}

// isActive reports whether the task still owns its write scope in the source checkout.
func isActive(r *taskRecord) bool {
	return r.RepoID != "" && !r.State.Terminal() && r.ArchivedAt == nil && r.PrunedAt == nil
}

// put records r in the index and reports whether its entry changed. The contract is parsed
// only when the task is new to the index or its contract changed.
func (x *activeIndex) put(e *Engine, r *taskRecord) bool {
	ar := x.repos[r.RepoID]
	if ar == nil {
		ar = &activeRepo{root: r.RepoRoot, commonDir: r.RepoCommonDir, tasks: map[string]activeEntry{}}
		x.repos[r.RepoID] = ar
	}
	x.repo[r.TaskID] = r.RepoID
	old, had := ar.tasks[r.TaskID]
	if had && old.follows(r) {
		return false
	}
	scope := old.task.WriteScope
	if !had || old.contractHash != r.ContractHash {
		scope = nil
		if c, err := parseStoredContract(r.Contract); err == nil {
			scope = slices.Clone(c.WriteScope)
		} else {
			// The guard cannot know what the task owns: claim the whole repository.
			e.log.Warn("active-task record: stored contract unreadable; guarding every path", "task", r.TaskID, "err", err)
			scope = []string{"**"}
		}
	}
	ar.tasks[r.TaskID] = activeEntry{contractHash: r.ContractHash, task: guard.ActiveTask{
		TaskID: r.TaskID, WriteScope: scope, Worktree: r.Worktree, Branch: r.Branch,
	}}
	return true
}

// writeActive writes (or removes) one repository's record from the index; x.mu is held.
func (e *Engine) writeActive(repoID string) {
	ar := e.active.repos[repoID]
	rec := guard.ActiveRepo{RepositoryID: repoID}
	if ar != nil {
		rec.Root, rec.CommonDir = ar.root, ar.commonDir
		for _, ent := range ar.tasks {
			rec.Tasks = append(rec.Tasks, ent.task)
		}
		slices.SortFunc(rec.Tasks, func(a, b guard.ActiveTask) int {
			switch {
			case a.TaskID < b.TaskID:
				return -1
			case a.TaskID > b.TaskID:
				return 1
			}
			return 0
		})
		if len(ar.tasks) == 0 {
			delete(e.active.repos, repoID)
		}
	}
	if err := guard.WriteActive(e.cfg.StateDir, rec); err != nil {
		e.log.Warn("active-task record not written", "repository", repoID, "err", err)
	}
}

// rebuildActive rewrites every record from the stored tasks and removes the records of
// repositories without an active task: a previous owner may have died between a commit and its
// record, or left records of tasks that ended.
func (e *Engine) rebuildActive() error {
	recs, err := e.store.List()
	if err != nil {
		return core.Errorf(core.CodeInternalError, nil, "listing tasks: %w", err)
	}
	x := &e.active
	x.mu.Lock()
	defer x.mu.Unlock()
	x.init()
	for _, rec := range recs {
		r, err := decodeRecord(rec.Data)
		if err != nil || !isActive(r) {
			continue
		}
		x.put(e, r)
	}
	keep := map[string]bool{}
	for repoID := range x.repos {
		keep[repoID] = true
		e.writeActive(repoID)
	}
	if err := guard.RemoveStale(e.cfg.StateDir, keep); err != nil {
		e.log.Warn("stale active-task records not removed", "err", err)
	}
	return nil
}

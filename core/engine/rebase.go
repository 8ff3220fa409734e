package engine

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"reasonixctl/core"
	"reasonixctl/core/gitx"
)

// maxConflictBytes bounds the file a review reads to look for conflict markers.
const maxConflictBytes = 8 << 20

// rebase moves a task in review whose change no longer applies to its source checkout's HEAD
// onto that HEAD: the reviewed change is merged onto it (gitx.PlanRebase, then ApplyRebase once
// the plan is recorded), the worktree gets the result with conflict markers where the merge
// could not settle, the task's base becomes the HEAD (journaled, rebased), and a repair round
// asks the worker to resolve the conflicts; its review is a new revision on the new base. The
// task is in review, or paused by a source collision (finalize's or a steer's: the HEAD changed
// the write scope), and its worktree holds the reviewed tree. A change that still applies is
// refused: finalize commits it on the recorded base and `task apply` lands it.
func (e *Engine) rebase(ctx context.Context, id string) (core.TaskView, error) {
	unlock := e.lockTask(id)
	defer unlock()
	if _, err := e.finishRebase(ctx, id); err != nil {
		// The checks below refuse what is wrong with the worktree, and say so.
		e.log.Warn("an earlier rebase's plan is unsettled", "task", id, "err", err)
	}
	r, err := e.load(id)
	if err != nil {
		return core.TaskView{}, err
	}
	// In review, or paused by a source collision after a review (a finalize or a steer found the
	// source's HEAD changed the write scope), with a round left for the conflicts: both hold the
	// reviewed tree, checked below.
	if err := refusal(r, core.ActionRebase); err != nil {
		return core.TaskView{}, err
	}
	c, err := parseStoredContract(r.Contract)
	if err != nil {
		return core.TaskView{}, core.Errorf(core.CodeInvalidState, nil, "stored contract: %w", err)
	}
	if err := e.linkCheck(r, "before_rebase"); err != nil {
		return core.TaskView{}, err
	}
	co, err := gitx.ReadCheckout(ctx, r.RepoRoot)
	if err != nil {
		return core.TaskView{}, gitError(err)
	}
	var dirty []string
	for _, p := range co.Dirty {
		if c.WriteAllowed(p) {
			dirty = append(dirty, p)
		}
	}
	if len(dirty) > 0 {
		return core.TaskView{}, core.Errorf(core.CodeDirtyRepository, &core.GitRefusal{Paths: dirty},
			"%s has uncommitted changes in the task's write scope (%s): commit or stash them and rebase again", r.RepoRoot, strings.Join(dirty, ", "))
	}
	p, err := gitx.PreviewApply(ctx, r.RepoRoot, r.BaseCommit, r.ReviewTreeHash)
	if err != nil {
		return core.TaskView{}, wrapError(core.CodeInternalError, err, "merge preview")
	}
	switch {
	case !p.Moved:
		return core.TaskView{}, core.Errorf(core.CodeInvalidState, &core.HeadRef{Head: p.Head},
			"task %s is on %s's HEAD already: nothing to rebase", id, r.RepoRoot)
	case p.Clean:
		return core.TaskView{}, core.Errorf(core.CodeInvalidState, &core.HeadRef{Head: p.Head},
			"task %s's change applies cleanly to %s's HEAD %s: finalize commits on the recorded base and `task apply` lands it; nothing to rebase",
			id, r.RepoRoot, short12(p.Head))
	}
	// The change merged is the reviewed one: the worktree must still hold exactly it.
	now, err := gitx.BuildReview(ctx, e.worktreeOf(r))
	if gitx.IsTampered(err) {
		return core.TaskView{}, e.tampered(id, "rebase", err)
	}
	if err != nil {
		return core.TaskView{}, gitError(err)
	}
	if now.Tree != r.ReviewTreeHash {
		return core.TaskView{}, core.Errorf(core.CodeInvalidState, &core.WorktreeMoved{ReviewTreeHash: r.ReviewTreeHash, WorktreeTreeHash: now.Tree},
			"task %s's worktree changed since review revision %d, so it is not the reviewed change: steer a repair round (its review can be rebased) or close the task", id, r.ReviewRevision)
	}
	plan, err := gitx.PlanRebase(ctx, e.worktreeOf(r), r.ReviewTreeHash, p.Head)
	if gitx.IsTampered(err) {
		return core.TaskView{}, e.tampered(id, "rebase", err)
	}
	if err != nil {
		return core.TaskView{}, gitError(err)
	}
	// The plan is recorded before the worktree moves, so that a crash between the branch moving
	// and the record saying so is finished by the next start (finishRebase) instead of leaving a
	// branch off its recorded base, refused for good as head_moved.
	intent := &rebaseIntent{From: plan.From, Onto: plan.Onto, Tree: plan.Tree, Conflicts: plan.Conflicts, Branch: co.Branch, ReviewRevision: r.ReviewRevision}
	if _, err := e.update(id, func(r *taskRecord) ([]newEvent, error) {
		r.RebaseIntent = intent
		return nil, nil
	}); err != nil {
		return core.TaskView{}, err
	}
	if rebaseCrash != nil && rebaseCrash("planned") {
		return core.TaskView{}, errSimulatedCrash
	}
	_, err = gitx.ApplyRebase(ctx, e.worktreeOf(r), r.ReviewTreeHash, plan)
	if rebaseCrash != nil && rebaseCrash("moved") {
		return core.TaskView{}, errSimulatedCrash
	}
	e.stamps.drop(id)
	if err != nil {
		// The record follows the branch: moved (only the index failed), the rebase is recorded;
		// not moved, the plan is dropped.
		if _, ferr := e.finishRebase(context.WithoutCancel(ctx), id); ferr != nil {
			e.log.Warn("a failed rebase left its plan unsettled", "task", id, "err", ferr)
		}
		if gitx.IsTampered(err) {
			return core.TaskView{}, e.tampered(id, "rebase", err)
		}
		return core.TaskView{}, gitError(err)
	}
	if _, err := e.update(id, func(r *taskRecord) ([]newEvent, error) {
		return []newEvent{recordRebase(r)}, nil
	}); err != nil {
		return core.TaskView{}, core.Errorf(core.CodeInternalError, nil, "the worktree was moved onto %s, but recording it failed (the next start records it): %w", plan.Onto, err)
	}
	// The round's prompt carries the note; if it cannot start, the next steer carries it.
	return e.steerLocked(ctx, id, "Resolve them, then ask for review as before.", core.ActionRebase, "", nil)
}

// rebaseIntent is a planned rebase (gitx.PlanRebase) recorded before it is written to the
// worktree, and cleared with the record of its result.
type rebaseIntent struct {
	From           string   `json:"from"`
	Onto           string   `json:"onto"`
	Tree           string   `json:"tree"`
	Conflicts      []string `json:"conflicts,omitempty"`
	Branch         string   `json:"branch,omitempty"`
	ReviewRevision int      `json:"review_revision"`
}

// rebaseCrash, set by tests, stops a rebase where a crash would: after its plan was recorded
// ("planned") or after the worktree moved ("moved"), before anything else is recorded.
var rebaseCrash func(stage string) bool

var errSimulatedCrash = errors.New("simulated crash")

// recordRebase records r's planned rebase as done: the base is the new HEAD, the conflicts and
// the note for the worker's next prompt are kept, and the plan is cleared.
func recordRebase(r *taskRecord) newEvent {
	in := r.RebaseIntent
	r.RebaseIntent = nil
	// The review stays the one of the old base (a record from before ReviewBase was kept says
	// so now), so that the next review is a new revision whatever its tree (saveReview).
	r.ReviewBase = reviewedBase(r)
	r.BaseCommit = in.Onto
	r.RebaseConflicts = in.Conflicts
	r.ContractNote += rebaseNote(gitx.RebaseResult{From: in.From, Onto: in.Onto, Tree: in.Tree, Conflicts: in.Conflicts})
	return event(core.EventRebased, core.RebasedData{From: in.From, To: in.Onto, Branch: in.Branch, ReviewRevision: in.ReviewRevision, Conflicts: nonNil(in.Conflicts)})
}

// finishRebase settles a rebase whose plan is recorded but whose result is not (the process died
// in between, or the rebase failed part way): when the task branch moved onto the new HEAD the
// rebase is recorded as done, and when it did not the plan is dropped. A branch moved elsewhere
// drops the plan too, and is refused as before (head_moved). It reports whether the rebase was
// recorded. The caller holds the task's lock, or is the start-up before anything runs.
func (e *Engine) finishRebase(ctx context.Context, id string) (bool, error) {
	r, err := e.load(id)
	if err != nil || r.RebaseIntent == nil {
		return false, err
	}
	in := r.RebaseIntent
	moved, ferr := gitx.FinishRebase(ctx, e.worktreeOf(r), gitx.RebaseResult{From: in.From, Onto: in.Onto, Tree: in.Tree, Conflicts: in.Conflicts})
	var ge *gitx.Error
	if ferr != nil && (!errors.As(ferr, &ge) || ge.Code != gitx.CodeOwnershipAmbiguous || gitx.IsTampered(ferr)) {
		// Not knowing where the branch is (git failed, the worktree's link is broken): the plan
		// is kept for the next try.
		return false, ferr
	}
	_, err = e.update(id, func(r *taskRecord) ([]newEvent, error) {
		if r.RebaseIntent == nil {
			return nil, nil
		}
		if !moved {
			r.RebaseIntent = nil
			return nil, nil
		}
		return []newEvent{recordRebase(r)}, nil
	})
	e.stamps.drop(id)
	return moved && err == nil, errors.Join(ferr, err)
}

// rebaseNote is what the worker is told of a rebase at its next prompt.
func rebaseNote(res gitx.RebaseResult) string {
	return fmt.Sprintf("The supervisor moved this task onto the source's current HEAD %s (it was on %s): your change was merged onto it in the worktree. "+
		"These files conflict: %s. Conflict markers mark each one: the lines from <<<<<<< to ======= are the new HEAD's, those from ======= to >>>>>>> yours. "+
		"Resolve every conflict keeping both intents, remove every marker, and stay within the write scope. ",
		short12(res.Onto), short12(res.From), strings.Join(limitStrings(res.Conflicts, 50), ", "))
}

// markedPaths returns the paths of r.RebaseConflicts whose file in tree still holds a conflict
// marker (a file that cannot be read counts as still marked).
func markedPaths(ctx context.Context, r *taskRecord, tree string) []string {
	var out []string
	for _, p := range r.RebaseConflicts {
		b, _, err := gitx.FileAt(ctx, r.RepoCommonDir, tree, p, maxConflictBytes)
		if err != nil || gitx.HasConflictMarkers(b) {
			out = append(out, p)
		}
	}
	return out
}

// conflictsLeft ends a turn whose worktree still holds a rebase's conflict markers: another
// repair round tells the worker which files, or, with none left, the task pauses
// (rebase_conflicts) with them listed.
func (e *Engine) conflictsLeft(id string, left []string) {
	list := strings.Join(limitStrings(left, 50), ", ")
	msg := "Conflict markers of the rebase remain in " + list + ": resolve every conflict keeping both intents and remove every marker, then ask for review."
	round, timeout := 0, time.Duration(0)
	_, err := e.update(id, func(r *taskRecord) ([]newEvent, error) {
		if r.State != core.StateRunning {
			return nil, nil
		}
		r.RebaseConflicts = left
		if r.RepairRounds >= core.MaxRepairRounds {
			r.RepairActive = false
			ev, err := setState(r, core.StatePaused, core.PhaseRebaseConflicts, fmt.Sprintf(
				"the rebase's conflicts are unresolved after %d repair rounds: conflict markers remain in %s. Resolve them in the worktree and resume, or close the task",
				core.MaxRepairRounds, list))
			return append(cancelInteractions(r, e.now()), ev), err
		}
		round = r.RepairRounds + 1
		timeout = time.Duration(r.ExecutionTimeout) * time.Second
		r.RepairRounds, r.RepairActive = round, true
		ev, err := setState(r, core.StateRunning, "repair_"+strconv.Itoa(round), "")
		return []newEvent{ev, event(core.EventSteered, core.SteeredData{Text: msg})}, err
	})
	if err != nil {
		e.log.Warn("rebase conflicts not recorded", "task", id, "err", err)
		return
	}
	if round == 0 {
		return
	}
	t := e.liveTask(id)
	if t == nil || t.session == nil {
		e.pause(id, core.PhaseRebaseConflicts, "the worker is gone with the rebase's conflicts unresolved: conflict markers remain in "+list)
		return
	}
	e.startTurn(t, steerText(round, msg), timeout)
}

package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"reasonixctl/core"
	"reasonixctl/core/contract"
	"reasonixctl/core/gitx"
	"reasonixctl/core/redact"
	"reasonixctl/core/review"
	"reasonixctl/store/atomicfile"
)

// reviewReady captures the worktree as the canonical review tree, checks what the worker changed
// against the contract, and moves the task to review_required with a new review revision.
func (e *Engine) reviewReady(ctx context.Context, id string) {
	r, err := e.load(id)
	if err != nil {
		return
	}
	c, err := parseStoredContract(r.Contract)
	if err != nil {
		e.fail(id, "contract_unreadable", err.Error())
		return
	}
	rev, err := gitx.BuildReviewKeepingIndex(ctx, e.worktreeOf(r), e.reviewIndexPath(id))
	if gitx.IsTampered(err) {
		_ = e.tampered(id, "review_readiness", err)
		return
	}
	if _, text := review.HeadRefusal(err); text != "" {
		e.pause(id, core.PhasePostflightFailed, text)
		return
	}
	if err != nil {
		e.pause(id, core.PhasePostflightFailed, "the worktree could not be snapshotted: "+err.Error())
		return
	}
	if len(r.RebaseConflicts) > 0 {
		if left := markedPaths(ctx, r, rev.Tree); len(left) > 0 {
			e.conflictsLeft(id, left)
			return
		}
	}
	refused, err := review.JudgeTree(ctx, r.RepoCommonDir, c, rev.Tree, rev.Files, rev.ReasonixChanges, rev.NestedRepositories)
	if err != nil {
		e.pause(id, core.PhasePostflightFailed, "the change could not be checked, so it is refused: "+redact.String(err.Error()))
		return
	}
	refused = append(refused, hardLinks(r.Worktree, rev.Files)...)
	if len(refused) > 0 {
		e.pause(id, core.PhasePostflightFailed, "the change cannot be committed: "+review.DescribeRefusals(refused))
		return
	}
	// What is ignored where the task may write: there a worker's file could pass for part of the
	// change. (The checks see no ignored file anywhere; see verify.)
	outside, err := gitx.Unreviewed(ctx, e.worktreeOf(r), rev.Tree, e.reviewIndexPath(id), c.WritePrefixes())
	if gitx.IsTampered(err) {
		_ = e.tampered(id, "review_readiness", err)
		return
	}
	if err != nil {
		e.pause(id, core.PhasePostflightFailed, "the worktree could not be compared with its snapshot: "+redact.String(err.Error()))
		return
	}
	if err := e.collisionCheck(ctx, r, "review_readiness"); err != nil {
		return
	}
	if err := e.saveReview(ctx, id, rev, func(r *taskRecord) ([]newEvent, error) {
		r.IgnoredFiles = shownIgnored(outside.Ignored)
		r.RepairActive = false
		r.RebaseConflicts = nil
		ev, err := setState(r, core.StateReviewRequired, core.PhaseReview, "")
		return []newEvent{ev}, err
	}); err != nil {
		e.log.Warn("review not saved", "task", id, "err", err)
	}
}

// maxIgnoredShown bounds the ignored paths a review lists.
const maxIgnoredShown = 50

// shownIgnored is the review's list of ignored paths: .reasonix, the worker's own scratch
// space, is left out of it (and out of the checks' view, like every ignored path).
func shownIgnored(ignored []string) []string {
	var out []string
	for _, p := range ignored {
		if p == gitx.ReasonixDir+"/" {
			continue
		}
		if len(out) == maxIgnoredShown {
			out = append(out, "…")
			break
		}
		out = append(out, redact.String(p))
	}
	return out
}

// hardLinks refuses changed regular files that have another name: a hard link made to a file
// outside the worktree would put its content, and later changes to it, in the commit unseen.
func hardLinks(worktree string, files []gitx.FileChange) []review.Refusal {
	var out []review.Refusal
	for _, f := range files {
		if f.NewMode != gitx.ModeFile && f.NewMode != gitx.ModeExec {
			continue
		}
		if n := linkCount(filepath.Join(worktree, filepath.FromSlash(f.Path))); n > 1 {
			out = append(out, review.Refuse(f.Path, core.RefusedHardLink, "a file with %d names", n))
		}
	}
	return out
}

// risks are the hidden or disguised characters the diff holds (risks.go), the worker's own,
// then what reasonixctl finds a reviewer must know: attributes the change adds or alters, and
// files on disk that the commit and the checks leave out.
func (r *taskRecord) risks() []string {
	out := append(sourceRiskTexts(r), r.Risks...)
	var attrs []string
	for _, f := range r.ChangedFiles {
		if path.Base(f) == ".gitattributes" {
			attrs = append(attrs, f)
		}
	}
	if len(attrs) > 0 {
		out = append(out, "attributes changed: "+strings.Join(limitStrings(attrs, 20), ", ")+
			". reasonixctl stores, diffs and checks the bytes on disk and runs no filter whatever they say; git applies them to whoever checks this branch out later")
	}
	if len(r.IgnoredFiles) > 0 {
		out = append(out, "ignored, not committed: "+strings.Join(limitStrings(r.IgnoredFiles, 20), ", ")+
			". On disk in the worktree, left out of the commit, and absent from the checks' view")
	}
	return out
}

// reviewedBase is the base r's current review was captured on.
func reviewedBase(r *taskRecord) string {
	if r.ReviewBase == "" {
		return r.BaseCommit
	}
	return r.ReviewBase
}

// newReview reports whether a review of tree is a new revision of r's: none was captured yet,
// the tree differs, or the base moved since (a rebase). The binding a finalize names
// (review_revision, review_tree_hash) thus changes whenever the change it stands for does, the
// base included: the same tree on a new base is another change, whose diff reverts whatever the
// new base changed where the tree did not follow it.
func newReview(r *taskRecord, tree string) bool {
	return r.ReviewRevision == 0 || r.ReviewTreeHash != tree || reviewedBase(r) != r.BaseCommit
}

// saveReview stores a captured review as the task's current one (a new revision when newReview
// says so) and applies then to the record in the same transaction.
func (e *Engine) saveReview(ctx context.Context, id string, rev gitx.Review, then func(r *taskRecord) ([]newEvent, error)) error {
	sum := sha256.Sum256(rev.Diff)
	diffSHA := hex.EncodeToString(sum[:])
	if err := e.writeReviewDiff(id, rev.Diff); err != nil {
		return err
	}
	risks := reviewRisks(rev)
	var checked map[string]core.ReviewComment
	if r, err := e.load(id); err == nil && r.ReviewTreeHash != rev.Tree {
		checked = e.commentsAgainst(ctx, r, rev.Tree)
	}
	_, err := e.update(id, func(r *taskRecord) ([]newEvent, error) {
		var evs []newEvent
		if newReview(r, rev.Tree) {
			r.ReviewRevision++
			evs = append(evs, applyChecked(r, checked, core.FormatTime(e.now()))...)
			r.ReviewTreeHash = rev.Tree
			r.ReviewBase = r.BaseCommit
			r.ChangedFiles = rev.Paths()
			r.DiffStat = diffStat(rev)
			r.DiffSHA256 = diffSHA
			r.SourceRisks = risks
			evs = append(evs, event(core.EventReviewReady, core.ReviewReadyData{
				ReviewRevision: r.ReviewRevision, ReviewTreeHash: r.ReviewTreeHash,
				ChangedFiles: limitStrings(r.ChangedFiles, core.MaxBundleFiles), DiffStat: r.DiffStat,
			}))
		}
		more, err := then(r)
		return append(evs, more...), err
	})
	return err
}

func diffStat(rev gitx.Review) string {
	var b strings.Builder
	for _, f := range rev.Files {
		if f.Binary {
			b.WriteString(" " + f.Path + " | Bin\n")
			continue
		}
		b.WriteString(" " + f.Path + " | +" + strconv.Itoa(f.Added) + " -" + strconv.Itoa(f.Deleted) + "\n")
	}
	b.WriteString(" " + rev.Stat() + "\n")
	return b.String()
}

func limitStrings(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func (e *Engine) reviewDiffPath(id string) string {
	return filepath.Join(e.cfg.StateDir, "reviews", id+".diff")
}

// reviewIndexPath is where the review's index is kept for the commit (gitx.CommitRequest
// ReviewIndex); the commit checks it still records the reviewed tree.
func (e *Engine) reviewIndexPath(id string) string {
	return filepath.Join(e.cfg.StateDir, "reviews", id+".index")
}

// writeReviewDiff keeps the current review's diff beside the store: it is derived from the
// review tree, too large for a record, and read by inspect and the dashboard.
func (e *Engine) writeReviewDiff(id string, diff []byte) error {
	return atomicfile.WriteFile(e.reviewDiffPath(id), diff, atomicfile.Options{MkdirAll: true})
}

func (e *Engine) reviewDiff(_ context.Context, r *taskRecord) (string, error) {
	b, err := os.ReadFile(e.reviewDiffPath(r.TaskID))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	return string(b), err
}

// checkpointHook, when set, runs at every collision checkpoint before its scan: tests use it to
// change the source checkout exactly there.
var checkpointHook atomic.Pointer[func(taskID, checkpoint string)]

// collisionCheck scans the source checkout for changes that overlap the task's write scope. A
// collision (or a scan that could not read the source) pauses the task and is returned as
// ownership_ambiguous; a clean scan clears a previously recorded collision.
//
// Every checkpoint first holds the worktree to the .git link made at its creation (linkCheck).
func (e *Engine) collisionCheck(ctx context.Context, r *taskRecord, checkpoint string) error {
	if h := checkpointHook.Load(); h != nil {
		(*h)(r.TaskID, checkpoint)
	}
	if err := e.linkCheck(r, checkpoint); err != nil {
		return err
	}
	c, err := parseStoredContract(r.Contract)
	if err != nil {
		return core.Errorf(core.CodeInvalidState, nil, "stored contract: %w", err)
	}
	prefixes := c.WritePrefixes()
	stamp, stamped := gitx.ReadStamp(r.RepoRoot, r.RepoCommonDir, prefixes)
	if stamped && r.Collision == nil && e.stamps.clean(r.TaskID, r.BaseCommit, stamp) {
		return nil
	}
	col := gitx.ScanSourceIn(ctx, r.RepoRoot, r.BaseCommit, prefixes, c.WriteAllowed)
	if !col.Collides() {
		if stamped && stamp.Settled() {
			e.stamps.put(r.TaskID, r.BaseCommit, stamp)
		} else {
			e.stamps.drop(r.TaskID)
		}
		if r.Collision != nil {
			_, _ = e.update(r.TaskID, func(r *taskRecord) ([]newEvent, error) {
				r.Collision = nil
				return nil, nil
			})
		}
		return nil
	}
	e.stamps.drop(r.TaskID)
	sc := &core.SourceCollision{
		Checkpoint: checkpoint, BaseCommit: r.BaseCommit, SourceHead: col.Head,
		DirtyPaths: nonNil(col.DirtyPaths), CommittedPaths: nonNil(col.CommittedPaths),
		OverlappingPaths: nonNil(col.Overlap), Unavailable: col.Unavailable, DetectedAt: core.FormatTime(e.now()),
	}
	reason := "the source checkout changed paths in the write scope: " + strings.Join(limitStrings(col.Overlap, 20), ", ")
	if col.Unavailable {
		reason = "the source checkout could not be scanned: " + col.Reason
	}
	_, _ = e.update(r.TaskID, func(r *taskRecord) ([]newEvent, error) {
		r.Collision = sc
		if r.State.Terminal() || r.State == core.StatePaused {
			return nil, nil
		}
		ev, err := setState(r, core.StatePaused, core.PhaseSourceCollision, reason)
		if err != nil {
			return nil, nil
		}
		return append(cancelInteractions(r, e.now()), ev), nil
	})
	if t := e.liveTask(r.TaskID); t != nil {
		e.spawn(t.cancelTurn)
	}
	return core.Errorf(core.CodeOwnershipAmbiguous, &core.CollisionPause{SourceCollision: sc}, "%s", reason)
}

// linkCheck stops a task whose worktree's .git was rewritten, replaced or removed: the task
// pauses (phase worktree_tampered, journaled with what was found) and the error is
// ownership_ambiguous with reason worktree_tampered. A worktree not created yet or already
// removed has nothing to check.
func (e *Engine) linkCheck(r *taskRecord, checkpoint string) error {
	if r.Worktree == "" {
		return nil
	}
	if _, err := os.Lstat(r.Worktree); err != nil {
		return nil
	}
	err := gitx.CheckLink(e.worktreeOf(r))
	if err == nil {
		return nil
	}
	return e.tampered(r.TaskID, checkpoint, err)
}

// tampered pauses a task whose worktree failed gitx.CheckLink and returns the typed error.
func (e *Engine) tampered(id, checkpoint string, cause error) error {
	var ge *gitx.Error
	what := cause.Error()
	if errors.As(cause, &ge) {
		what = ge.Message
	}
	reason := gitx.ReasonTampered + ": " + what + " (at " + checkpoint + "). reasonixctl no longer runs git on this worktree; restore .git or cancel the task"
	_, _ = e.update(id, func(r *taskRecord) ([]newEvent, error) {
		if r.State.Terminal() || (r.State == core.StatePaused && r.Phase == core.PhaseWorktreeTampered) {
			return nil, nil
		}
		ev, err := setState(r, core.StatePaused, core.PhaseWorktreeTampered, reason)
		if err != nil {
			return nil, nil
		}
		return append(cancelInteractions(r, e.now()), ev), nil
	})
	if t := e.liveTask(id); t != nil {
		e.spawn(t.cancelTurn)
	}
	return core.Errorf(core.CodeOwnershipAmbiguous, &core.WorktreeTampered{Reason: gitx.ReasonTampered, Path: ".git", Checkpoint: checkpoint, Found: what}, "%s", reason)
}

// delegateResult is the view plus, in review or with a pending interaction, the review bundle.
func (e *Engine) delegateResult(ctx context.Context, r *taskRecord, timedOut bool) core.DelegateResult {
	res := core.DelegateResult{TaskView: r.view(), TimedOut: timedOut}
	ia := r.pendingInteraction()
	if r.State != core.StateReviewRequired && ia == nil {
		return res
	}
	b := &core.ReviewBundle{
		Summary:          core.TruncateText(redactText(r.Summary), core.MaxBundleSummaryLen),
		ChangedFiles:     limitStrings(nonNil(r.ChangedFiles), core.MaxBundleFiles),
		DiffStat:         core.TruncateText(r.DiffStat, core.MaxBundleDiffStatLen),
		Risks:            nonNil(r.risks()),
		ReviewDiffSHA256: r.DiffSHA256,
	}
	u := r.usage()
	b.Usage = &u
	if c, err := parseStoredContract(r.Contract); err == nil {
		b.RequiredReviewCriteria = c.CriteriaIDs(contract.EvidenceReview)
		slices.Sort(b.RequiredReviewCriteria)
	}
	b.RequiredReviewCriteria = nonNil(b.RequiredReviewCriteria)
	if ia != nil {
		cp := *ia
		if raw, _ := json.Marshal(cp.Request); len(raw) > core.MaxBundleRequestBytes {
			cp.Request = core.InteractionRequest{Truncated: true, Title: cp.Request.Title, Options: []core.InteractionOption{}}
		}
		b.ActiveInteraction = &cp
	}
	res.ReviewBundle = b
	if r.State == core.StateReviewRequired {
		diff, _ := e.reviewDiff(ctx, r)
		fixed, _ := json.Marshal(res)
		if room := core.MaxBundleBytes - len(fixed) - 64; room > 0 {
			b.Diff = fitJSONString(redactText(diff), room)
		}
	}
	return res
}

// fitJSONString cuts s so that its JSON encoding takes at most room bytes.
func fitJSONString(s string, room int) string {
	for {
		enc, _ := json.Marshal(s)
		if len(enc) <= room {
			return s
		}
		over := len(enc) - room
		cut := len(s) - over
		if over < 16 {
			cut = len(s) - 16
		}
		if cut <= 0 {
			return ""
		}
		s = core.TruncateText(s, cut)
	}
}

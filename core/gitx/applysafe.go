package gitx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Kinds of Obstacle.
const (
	ObstacleIgnored   = "ignored"   // a file git ignores (.gitignore, .git/info/exclude)
	ObstacleUntracked = "untracked" // a file git neither tracks nor ignores
	ObstacleSymlink   = "symlink"   // a symbolic link, tracked or not
)

// Obstacle is something of the person's where applying a commit would write: git treats an
// ignored file as expendable and replaces it without a word, and a symlink on the way would
// have the write land wherever it leads.
type Obstacle struct {
	Path string `json:"path"`
	Kind string `json:"kind"`
}

// ApplyPlan is what applying a commit to a checkout would do, computed without writing
// anything: the merge preview, the paths the apply would write and what of the person's stands
// in their way. The dry run and the apply are both this computation.
type ApplyPlan struct {
	ApplyPreview
	Added     []string   // paths the apply creates (absent from HEAD), sorted
	Changed   []string   // paths of HEAD it modifies or deletes, sorted
	Obstacles []Obstacle // sorted by path; empty when the apply loses nothing
	// newDirs are the folders the apply would create to hold Added paths (absent when
	// planned), which a failed apply removes again.
	newDirs []string
}

// PlanApply merges commit (whose parent is base) onto root's HEAD as PreviewApply does, and
// when it merges cleanly lists the paths the apply would write and the obstacles at them.
func PlanApply(ctx context.Context, root, base, commit string) (ApplyPlan, error) {
	p, w, err := previewApply(ctx, root, base, commit, true)
	if err != nil || !p.Clean {
		return ApplyPlan{ApplyPreview: p}, err
	}
	plan := ApplyPlan{ApplyPreview: p, Added: w.added, Changed: w.changed}
	plan.Obstacles, plan.newDirs, err = obstaclesAt(ctx, root, w.added, w.changed)
	return plan, err
}

// obstaclesAt looks at each path an apply writes, and at each folder on the way to it, in
// root's work tree: a symlink anywhere there, and anything git does not track where the apply
// creates a path (or needs a folder), is an obstacle. It also returns the folders that do not
// exist yet on the way to added paths. Only lstat is used on the way, so no link is followed.
func obstaclesAt(ctx context.Context, root string, added, changed []string) ([]Obstacle, []string, error) {
	var obs []Obstacle
	var probe []string
	newDirs := map[string]bool{}
	walk := func(p string, creates bool) error {
		parts := strings.Split(p, "/")
		for i := range parts {
			rel := strings.Join(parts[:i+1], "/")
			last := i == len(parts)-1
			fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
			switch {
			case errors.Is(err, fs.ErrNotExist):
				for j := i; creates && j < len(parts)-1; j++ {
					newDirs[strings.Join(parts[:j+1], "/")] = true
				}
				return nil
			case err != nil:
				return &Error{Code: CodeInternal, Reason: ReasonGitFailed, Message: "reading the checkout", Err: err}
			case fi.Mode()&fs.ModeSymlink != 0:
				obs = append(obs, Obstacle{Path: rel, Kind: ObstacleSymlink})
				return nil
			case !last && fi.IsDir():
				continue
			case !last || creates:
				// A file where the commit needs a folder, or anything where it creates a path:
				// checkout replaces it unless git tracks it, which ls-files answers below.
				probe = append(probe, rel)
			}
			return nil
		}
		return nil
	}
	for _, p := range added {
		if err := walk(p, true); err != nil {
			return nil, nil, err
		}
	}
	for _, p := range changed {
		if err := walk(p, false); err != nil {
			return nil, nil, err
		}
	}
	probe = sortedUnique(probe)
	// ls-files --others without exclusions lists every file git does not track at or under
	// the probed paths, ignored ones included; with --ignored --exclude-standard, the ignored
	// ones alone (.gitignore, .git/info/exclude).
	others, err := lsOthers(ctx, root, probe, false)
	if err != nil {
		return nil, nil, err
	}
	if len(others) > 0 {
		ignored, err := lsOthers(ctx, root, probe, true)
		if err != nil {
			return nil, nil, err
		}
		for _, p := range others {
			kind := ObstacleUntracked
			if slices.Contains(ignored, p) {
				kind = ObstacleIgnored
			}
			obs = append(obs, Obstacle{Path: strings.TrimSuffix(p, "/"), Kind: kind})
		}
	}
	slices.SortFunc(obs, func(a, b Obstacle) int { return strings.Compare(a.Path, b.Path) })
	obs = slices.CompactFunc(obs, func(a, b Obstacle) bool { return a.Path == b.Path })
	dirs := make([]string, 0, len(newDirs))
	for d := range newDirs {
		dirs = append(dirs, d)
	}
	return obs, sortedUnique(dirs), nil
}

// lsOthers runs `git ls-files --others` on paths (literal pathspecs, in batches that keep the
// command line short), sorted.
func lsOthers(ctx context.Context, root string, paths []string, ignored bool) ([]string, error) {
	var out []string
	for len(paths) > 0 {
		n := min(len(paths), 256)
		args := []string{"ls-files", "-z", "--others"}
		if ignored {
			args = append(args, "--ignored", "--exclude-standard")
		}
		args = append(append(args, "--"), paths[:n]...)
		b, err := gitCmd{at: inCheckout(root), args: args, env: []string{"GIT_LITERAL_PATHSPECS=1"}}.must(ctx, CodeInternal, ReasonGitFailed)
		if err != nil {
			return nil, err
		}
		for _, f := range bytes.Split(b, []byte{0}) {
			if len(f) > 0 {
				out = append(out, string(f))
			}
		}
		paths = paths[n:]
	}
	return sortedUnique(out), nil
}

// operations are the traces git leaves in a checkout's git directory while an operation of
// the person's is under way, in the order they are reported: a rebase stopped on a detached
// HEAD says rebase, not detached.
var operations = []struct{ file, name string }{
	{"rebase-merge", "rebase"},
	{"rebase-apply", "rebase"}, // or am: see inProgress
	{"MERGE_HEAD", "merge"},
	{"CHERRY_PICK_HEAD", "cherry-pick"},
	{"REVERT_HEAD", "revert"},
	// A sequence of picks or reverts whose stop was resolved and committed by hand: no
	// *_HEAD is left, but `git cherry-pick --continue` goes on from here.
	{"sequencer", "cherry-pick"},
	{"BISECT_START", "bisect"},
}

// inProgress names the operation under way in root (merge, rebase, am, cherry-pick, revert,
// bisect), or "" when none is. The paths come from git (--git-path), so a linked worktree's
// own git directory is the one looked at.
func inProgress(ctx context.Context, root string) (string, error) {
	args := []string{"rev-parse", "--path-format=absolute"}
	for _, o := range operations {
		args = append(args, "--git-path", o.file)
	}
	out, err := git(ctx, CodeInternal, ReasonGitFailed, inCheckout(root), args...)
	if err != nil {
		return "", err
	}
	paths := lines(out)
	if len(paths) != len(operations) {
		return "", newErr(CodeInternal, ReasonGitFailed, "rev-parse --git-path printed %d lines for %d paths", len(paths), len(operations))
	}
	for i, o := range operations {
		if _, err := os.Lstat(paths[i]); errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			return "", &Error{Code: CodeInternal, Reason: ReasonGitFailed, Message: "reading the checkout's git directory", Err: err}
		}
		switch o.file {
		case "rebase-apply":
			if _, err := os.Lstat(filepath.Join(paths[i], "applying")); err == nil {
				return "am", nil
			}
		case "sequencer":
			if todo, err := os.ReadFile(filepath.Join(paths[i], "todo")); err == nil && sequenceReverts(todo) {
				return "revert", nil
			}
		}
		return o.name, nil
	}
	return "", nil
}

// sequenceReverts reports whether a sequencer todo list's next step is a revert.
func sequenceReverts(todo []byte) bool {
	for _, l := range strings.Split(string(todo), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			w, _, _ := strings.Cut(l, " ")
			return w == "revert" || w == "r"
		}
	}
	return false
}

// ContinueCommand is how the person finishes or abandons an operation inProgress named.
func ContinueCommand(op string) string {
	switch op {
	case "bisect":
		return "git bisect reset"
	case "":
		return ""
	}
	return fmt.Sprintf("git %s --continue, or git %s --abort", op, op)
}

// checkoutState is what a failed apply must leave as it found: HEAD, its branch, the status
// (clean, or the apply would not have started) and no operation under way.
type checkoutState struct {
	head, branch string
	entries      []statusEntry
	op           string
}

func readCheckoutState(ctx context.Context, root string) (checkoutState, error) {
	st, err := sourceStatus(ctx, root, true)
	if err != nil {
		return checkoutState{}, wrap(CodeInternal, ReasonGitFailed, err)
	}
	op, err := inProgress(ctx, root)
	if err != nil {
		return checkoutState{}, err
	}
	return checkoutState{head: st.head, branch: st.branch, entries: st.entries, op: op}, nil
}

// restoreAfterPick puts root back as before after a cherry-pick of commit that failed: its
// own pick state dropped (only when CHERRY_PICK_HEAD is commit, so nothing of the person's is
// ever aborted), the branch moved back if the pick got as far as committing, the index and
// files at the paths the plan writes taken from HEAD again, and the paths and folders it
// created removed (they did not exist when it started). It returns what still differs from
// before, read again after restoring: empty means the checkout is as it was.
func restoreAfterPick(ctx context.Context, root, commit string, before checkoutState, plan ApplyPlan) []string {
	if differs := compareState(ctx, root, before, plan); len(differs) == 0 {
		return nil // the pick stopped before it changed anything
	}
	at := inCheckout(root)
	if p, err := git(ctx, CodeInternal, ReasonGitFailed, at, "rev-parse", "--path-format=absolute", "--git-path", "CHERRY_PICK_HEAD"); err == nil {
		if b, err := os.ReadFile(strings.TrimSpace(string(p))); err == nil && strings.TrimSpace(string(b)) == commit {
			_, _ = gitCmd{at: at, args: []string{"cherry-pick", "--quit"}}.run(ctx)
		}
	}
	if before.branch != "" {
		ref := "refs/heads/" + before.branch
		if cur, err := git(ctx, CodeInternal, ReasonGitFailed, at, "rev-parse", "--verify", "-q", ref+"^{commit}"); err == nil {
			now := strings.TrimSpace(string(cur))
			// Only our own commit is taken back: one on top of the HEAD we started from.
			if parent, err := git(ctx, CodeInternal, ReasonGitFailed, at, "rev-parse", "--verify", "-q", now+"^1"); now != before.head && err == nil && strings.TrimSpace(string(parent)) == before.head {
				_, _ = gitCmd{at: at, args: []string{"update-ref", "-m", "reasonixctl: undo a failed apply", ref, before.head, now}}.run(ctx)
			}
		}
	}
	written := append(slices.Clone(plan.Added), plan.Changed...)
	if len(written) > 0 {
		spec := []byte(strings.Join(written, "\x00") + "\x00")
		_, _ = gitCmd{at: at, args: []string{"reset", "-q", "--pathspec-from-file=-", "--pathspec-file-nul", "HEAD"},
			env: []string{"GIT_LITERAL_PATHSPECS=1"}, stdin: spec}.run(ctx)
	}
	if len(plan.Changed) > 0 {
		_, _ = gitCmd{at: at, args: []string{"checkout-index", "-f", "-q", "-z", "--stdin"},
			stdin: []byte(strings.Join(plan.Changed, "\x00") + "\x00")}.run(ctx)
	}
	for _, p := range plan.Added {
		full := filepath.Join(root, filepath.FromSlash(p))
		if fi, err := os.Lstat(full); err == nil && !fi.IsDir() {
			_ = os.Remove(full)
		}
	}
	for i := len(plan.newDirs) - 1; i >= 0; i-- { // deepest first: sorted, a folder precedes what it holds
		_ = os.Remove(filepath.Join(root, filepath.FromSlash(plan.newDirs[i])))
	}
	return compareState(ctx, root, before, plan)
}

// compareState says how root differs from before, in words: HEAD, branch, the status, an
// operation under way, and any path the plan creates that exists (ignored files do not show
// in the status).
func compareState(ctx context.Context, root string, before checkoutState, plan ApplyPlan) []string {
	now, err := readCheckoutState(ctx, root)
	if err != nil {
		return []string{"the checkout could not be read again: " + err.Error()}
	}
	var d []string
	if now.head != before.head {
		d = append(d, fmt.Sprintf("HEAD is at %s (was %s)", shortHash(now.head), shortHash(before.head)))
	}
	if now.branch != before.branch {
		d = append(d, fmt.Sprintf("the branch checked out is %q (was %q)", now.branch, before.branch))
	}
	if now.op != before.op {
		d = append(d, fmt.Sprintf("a %s is under way", now.op))
	}
	for _, e := range now.entries {
		if !slices.ContainsFunc(before.entries, func(b statusEntry) bool { return b == e }) {
			d = append(d, fmt.Sprintf("%s is %s", e.path, describeEntry(e)))
		}
	}
	for _, p := range plan.Added {
		if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p))); err == nil && !slices.ContainsFunc(now.entries, func(e statusEntry) bool { return e.path == p }) {
			d = append(d, p+" exists (it did not)")
		}
	}
	return d
}

func describeEntry(e statusEntry) string {
	switch {
	case e.kind == '?':
		return "untracked"
	case e.kind == 'u':
		return "unmerged"
	case e.staged() && e.unstaged():
		return "staged and modified"
	case e.staged():
		return "staged"
	}
	return "modified"
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	if h == "" {
		return "(none)"
	}
	return h
}

// status is the checkoutState's entries as a status, for its paths.
func (s checkoutState) status() status {
	return status{head: s.head, branch: s.branch, entries: s.entries}
}

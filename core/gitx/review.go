package gitx

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ReasonixDir is the runtime metadata folder: untracked files there never enter a review tree.
const ReasonixDir = ".reasonix"

// FileChange is one changed path between the base and the review tree.
type FileChange struct {
	Path    string
	Status  byte   // 'A' added, 'M' modified (content or mode), 'D' deleted, 'T' type changed
	OldMode string // "000000" when added
	NewMode string // "000000" when deleted; 120000 a symlink, 160000 a gitlink
	OldHash string // the object the path held (all zeros when added)
	NewHash string // the object the path will hold (all zeros when deleted)
	Added   int    // lines; 0 for binary files
	Deleted int
	// Binary is set when the review's patch of the file is binary (no lines shown).
	Binary bool
	// BinaryFacts is set on a file git calls binary, also when the review shows it as text
	// (see binary.go); nil otherwise.
	BinaryFacts *BinaryFacts
}

// Review is the canonical snapshot of a worktree: what a commit of this task would contain.
type Review struct {
	Tree            string       // 40 hex
	Files           []FileChange // every change except those under .reasonix
	ReasonixChanges []string     // changes under .reasonix still in the tree: tracked files (a scope violation)
	// NestedRepositories are untracked directories holding a repository of their own without a
	// commit checked out: git cannot snapshot them, so they are left out of Tree and listed here
	// (a nested repository with a commit shows up in Files as a gitlink, mode 160000).
	NestedRepositories []string
	Diff               []byte // binary-safe patch from the base to Tree
}

// Paths lists the changed files.
func (r Review) Paths() []string {
	out := make([]string, len(r.Files))
	for i, f := range r.Files {
		out[i] = f.Path
	}
	return out
}

// Stat summarises the change like `git diff --shortstat`.
func (r Review) Stat() string {
	add, del := 0, 0
	for _, f := range r.Files {
		add += f.Added
		del += f.Deleted
	}
	return fmt.Sprintf("%d files changed, %d insertions(+), %d deletions(-)", len(r.Files), add, del)
}

// reviewTx is a temporary folder holding a disposable index, the exclusion of untracked
// .reasonix files and the view through which git reads the worktree (see view).
type reviewTx struct {
	dir, index, exclude string
	view                view
}

func newReviewTx(wt Worktree) (*reviewTx, error) {
	for {
		dir, reused, err := takeTxDir()
		if err != nil {
			return nil, &Error{Code: CodeInternal, Reason: ReasonGitFailed, Message: "temporary folder", Err: err}
		}
		tx, err := layOutTx(dir, wt)
		if err == nil {
			return tx, nil
		}
		os.RemoveAll(dir)
		if !reused {
			return nil, err
		}
		// A kept folder that cannot be written again (a cleaner removed it): take another.
	}
}

// layOutTx writes every file of a transaction's folder, which may be a kept one (takeTxDir):
// nothing of an earlier transaction's is read.
func layOutTx(dir string, wt Worktree) (*reviewTx, error) {
	tx := &reviewTx{dir: dir, index: filepath.Join(dir, "index"), exclude: filepath.Join(dir, "exclude")}
	// An exclude pattern hides only untracked files: tracked changes under .reasonix still show.
	if err := writeIfChanged(tx.exclude, []byte("/"+ReasonixDir+"/\n"), 0o600); err != nil {
		return nil, &Error{Code: CodeInternal, Reason: ReasonGitFailed, Message: "temporary file", Err: err}
	}
	var err error
	if tx.view, err = newView(dir, wt, wt.Base); err != nil {
		return nil, err
	}
	return tx, nil
}

func (tx *reviewTx) close() { putTxDir(tx.dir) }

// cmd runs git over the worktree through the view, against the disposable index, with the
// .reasonix exclusion.
func (tx *reviewTx) cmd(args ...string) gitCmd { return tx.cmdOn(tx.index, args...) }

// cmdOn is cmd against another index: the worktree's own, at the commit.
func (tx *reviewTx) cmdOn(index string, args ...string) gitCmd {
	return gitCmd{at: tx.view.at(index), args: append([]string{"-c", "core.excludesFile=" + tx.exclude}, args...)}
}

// BuildReview snapshots the worktree into a tree through a temporary index (the base, then every
// tracked, untracked, deleted and mode change, untracked .reasonix files excluded) and diffs it
// against the base. Four git processes; a change with binary files takes one or two more to
// measure and read them, and one more diff when some are shown as text (binary.go). The
// worktree's own index is only read (as the seed of the disposable one, see readBase).
func BuildReview(ctx context.Context, wt Worktree) (Review, error) {
	return BuildReviewKeepingIndex(ctx, wt, "")
}

// BuildReviewKeepingIndex is BuildReview that also keeps the disposable index, which then holds
// exactly the review tree with the stat data of the worktree's files, at keepIndex (replaced
// atomically, its time kept). Commit can install it as the worktree's index instead of reading
// the tree again (CommitRequest.ReviewIndex). An index that cannot be kept is removed.
func BuildReviewKeepingIndex(ctx context.Context, wt Worktree, keepIndex string) (Review, error) {
	if keepIndex != "" {
		os.Remove(keepIndex)
	}
	if !hex40.MatchString(wt.Base) || !filepath.IsAbs(wt.Path) {
		return Review{}, badInput("BuildReview needs a worktree with an absolute path and a resolved base")
	}
	if err := CheckHead(ctx, wt); err != nil {
		return Review{}, err
	}
	tx, err := newReviewTx(wt)
	if err != nil {
		return Review{}, err
	}
	defer tx.close()
	if err := tx.readBase(ctx, wt); err != nil {
		return Review{}, err
	}
	nested, err := tx.addAll(ctx)
	if err != nil {
		return Review{}, err
	}
	out, err := tx.cmd("write-tree").must(ctx, CodeInternal, ReasonGitFailed)
	if err != nil {
		return Review{}, err
	}
	tree := strings.TrimSpace(string(out))
	if !hex40.MatchString(tree) {
		return Review{}, newErr(CodeInternal, ReasonGitFailed, "write-tree returned %q", tree)
	}
	r, all, err := tx.diffTree(ctx, wt.Base, tree)
	if err != nil {
		return Review{}, err
	}
	asText, err := lookAtBinaries(ctx, wt.CommonDir, r.Files)
	if err != nil {
		return Review{}, err
	}
	if len(asText) > 0 {
		if r, err = tx.diffAsText(ctx, wt.Base, tree, r, asText); err != nil {
			return Review{}, err
		}
	}
	changesSeen.put(wt.Base, tree, all)
	r.Tree = tree
	r.NestedRepositories = nested
	if keepIndex != "" {
		keepFile(tx.index, keepIndex)
	}
	return r, nil
}

// diffTree is the review's diff of base to tree: raw records, numstat and the patch, in one
// process. It runs without a work tree, so that only the view's attributes apply: no
// .gitattributes of the worker's can mark a file binary (-diff) and hide its lines.
func (tx *reviewTx) diffTree(ctx context.Context, base, tree string) (Review, []FileChange, error) {
	out, err := git(ctx, CodeInternal, ReasonGitFailed, tx.view.bare(), "diff-tree", "-r", "-z", "--no-renames",
		"--no-ext-diff", "--no-textconv", "--raw", "--numstat", "-p", "--binary", "--full-index", base, tree)
	if err != nil {
		return Review{}, nil, err
	}
	r, all, err := parseTreeDiff(out)
	if err != nil {
		return Review{}, nil, &Error{Code: CodeInternal, Reason: ReasonGitFailed, Message: "unexpected diff-tree output", Err: err}
	}
	return r, all, nil
}

// diffAsText diffs base to tree again with the view's attributes telling git to show the
// binary files at paths as text (lookAtBinaries chose them), and carries the first diff's
// BinaryFacts over. The whole diff is made again rather than spliced, so that the patch stays
// exactly git's, in git's order; this happens only for a change with such a file.
func (tx *reviewTx) diffAsText(ctx context.Context, base, tree string, first Review, paths []string) (Review, error) {
	if err := tx.view.setTextAttributes(paths); err != nil {
		return Review{}, err
	}
	r, _, err := tx.diffTree(ctx, base, tree)
	if err != nil {
		return Review{}, err
	}
	if len(r.Files) != len(first.Files) {
		return Review{}, newErr(CodeInternal, ReasonGitFailed, "the diff shown as text has %d files, the first %d", len(r.Files), len(first.Files))
	}
	for i := range r.Files {
		f, b := &r.Files[i], first.Files[i].BinaryFacts
		if f.Path != first.Files[i].Path {
			return Review{}, newErr(CodeInternal, ReasonGitFailed, "the diff shown as text differs from the first at %q", f.Path)
		}
		if b != nil && b.AsText && f.Binary {
			// git kept the binary patch after all: say so rather than claim lines were shown.
			b.AsText, b.Why, b.Controls, b.ControlLines, b.MoreControlLines = false, NotShownBinary, 0, nil, 0
		}
		f.BinaryFacts = b
	}
	return r, nil
}

// readBase fills the disposable index with the base tree. Seeded from a copy of the worktree's
// own plain index, `read-tree -m` keeps the stat data of the entries the base leaves as they
// are, so `add -A` then reads only files whose stat data changed, not every file of the
// checkout; the index's content is the base tree either way. An index that is still byte for
// byte the one the worktree's checkout wrote is the base already and needs no read-tree.
// Without a usable seed, or if the merge fails, the base is read alone.
func (tx *reviewTx) readBase(ctx context.Context, wt Worktree) error {
	seeded, isBase := seedIndex(wt, tx.index)
	if seeded && isBase {
		return nil // the worktree's index is still the one its checkout of the base wrote
	}
	if seeded {
		if _, err := tx.cmd("read-tree", "-m", wt.Base).run(ctx); err == nil {
			return nil
		} else if ctx.Err() != nil {
			return ctx.Err()
		}
		os.Remove(tx.index)
	}
	_, err := tx.cmd("read-tree", wt.Base).must(ctx, CodeInternal, ReasonGitFailed)
	return err
}

// addAll stages every change into the disposable index. git refuses a whole `add -A` when an
// untracked directory is a repository without a commit; those directories are found, excluded
// and returned, and the add is repeated without them.
func (tx *reviewTx) addAll(ctx context.Context) ([]string, error) {
	_, err := tx.cmd("add", "-A").run(ctx)
	if err == nil {
		return nil, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	out, serr := tx.cmd("status", "--porcelain=v2", "-z", "--untracked-files=all", "--ignore-submodules=all").run(ctx)
	st, perr := parseStatus(out)
	if serr != nil || perr != nil {
		return nil, wrap(CodeInternal, ReasonGitFailed, err)
	}
	var nested []string
	for _, e := range st.entries {
		// With --untracked-files=all, git shows a directory only when it is a repository.
		if e.kind == '?' && strings.HasSuffix(e.path, "/") {
			nested = append(nested, strings.TrimSuffix(e.path, "/"))
		}
	}
	if len(nested) == 0 {
		return nil, wrap(CodeInternal, ReasonGitFailed, err)
	}
	f, ferr := os.OpenFile(tx.exclude, os.O_APPEND|os.O_WRONLY, 0o600)
	if ferr != nil {
		return nil, &Error{Code: CodeInternal, Reason: ReasonGitFailed, Message: "temporary file", Err: ferr}
	}
	for _, p := range nested {
		fmt.Fprintf(f, "/%s/\n", escapeGlob(p))
	}
	if ferr := f.Close(); ferr != nil {
		return nil, &Error{Code: CodeInternal, Reason: ReasonGitFailed, Message: "temporary file", Err: ferr}
	}
	if _, err := tx.cmd("add", "-A").must(ctx, CodeInternal, ReasonGitFailed); err != nil {
		return nil, err
	}
	return sortedUnique(nested), nil
}

// escapeGlob quotes the characters that are special in an exclude pattern.
func escapeGlob(p string) string {
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`\*?[`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// CheckHead refuses a worktree whose .git is not the link made at its creation (reason
// worktree_tampered, see CheckLink) or whose HEAD is not the task branch at the base: a commit
// made there, or a switch to another branch, means the worktree no longer holds only the task's
// uncommitted change (ownership_ambiguous, reason head_moved or wrong_branch). At most one git
// process, which reads the worktree's HEAD from the repository's side.
func CheckHead(ctx context.Context, wt Worktree) error {
	if err := CheckLink(wt); err != nil {
		return err
	}
	l, err := headOf(ctx, wt)
	if err != nil {
		return err
	}
	switch {
	case l[1] == "HEAD":
		return newErr(CodeOwnershipAmbiguous, ReasonWrongBranch, "the worktree's HEAD is detached, not on %s", BranchPrefix+wt.Task)
	case l[1] != wt.Ref():
		return newErr(CodeOwnershipAmbiguous, ReasonWrongBranch, "the worktree is on %s, not %s", strings.TrimPrefix(l[1], "refs/heads/"), BranchPrefix+wt.Task)
	case l[0] != wt.Base:
		return newErr(CodeOwnershipAmbiguous, ReasonHeadMoved, "the task branch has commits since the base: HEAD is %s, the base %s", l[0], wt.Base)
	}
	return nil
}

// headOf returns the worktree's HEAD commit and the ref it names ("HEAD" when detached), read
// from the repository's side.
func headOf(ctx context.Context, wt Worktree) ([]string, error) {
	if l, ok := readHead(wt); ok {
		return l, nil
	}
	admin, err := wt.adminDir()
	if err != nil {
		return nil, err
	}
	out, err := git(ctx, CodeInternal, ReasonGitFailed, inAdminDir(admin), "rev-parse", "HEAD", "--symbolic-full-name", "HEAD")
	if err != nil {
		return nil, err
	}
	l := lines(out)
	if len(l) != 2 {
		return nil, newErr(CodeInternal, ReasonGitFailed, "rev-parse HEAD returned %q", out)
	}
	return l, nil
}

// readHead reads the worktree's HEAD as `rev-parse HEAD --symbolic-full-name HEAD` prints it,
// from the files git keeps it in: the worktree's HEAD naming the task branch, and the branch's
// loose ref in the common directory (git replaces both by rename, so a read sees a whole one).
// Anything else — a detached HEAD, another branch, a packed or symbolic ref, a reftable — is
// left to git (ok false).
func readHead(wt Worktree) (l []string, ok bool) {
	if !filepath.IsAbs(wt.CommonDir) {
		return nil, false
	}
	if _, err := os.Lstat(filepath.Join(wt.CommonDir, "reftable")); err == nil {
		return nil, false
	}
	gitDir, err := wt.adminDir()
	if err != nil {
		return nil, false
	}
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil || strings.TrimSpace(string(head)) != "ref: "+wt.Ref() {
		return nil, false
	}
	ref, err := os.ReadFile(filepath.Join(wt.CommonDir, filepath.FromSlash(wt.Ref())))
	if err != nil || len(ref) != 41 || ref[40] != '\n' || !hex40.Match(ref[:40]) {
		return nil, false
	}
	return []string{string(ref[:40]), wt.Ref()}, true
}

// parseTreeDiff reads `diff-tree -z --raw --numstat -p`: NUL-separated raw records (header, path),
// then as many numstat records, then an empty field, then the patch.
func parseTreeDiff(out []byte) (Review, []FileChange, error) {
	var r Review
	var all []FileChange
	rest := out
	next := func() (string, bool) {
		i := bytes.IndexByte(rest, 0)
		if i < 0 {
			return "", false
		}
		f := string(rest[:i])
		rest = rest[i+1:]
		return f, true
	}
	for len(rest) > 0 && rest[0] == ':' {
		rec, err := nextRawRecord(&rest)
		if err != nil {
			return r, nil, err
		}
		all = append(all, rec)
	}
	for i := range all {
		rec, ok := next()
		parts := strings.SplitN(rec, "\t", 3)
		if !ok || len(parts) != 3 || parts[2] != all[i].Path {
			return r, nil, fmt.Errorf("numstat record %q for %q", rec, all[i].Path)
		}
		if parts[0] == "-" {
			all[i].Binary = true
			continue
		}
		a, err1 := strconv.Atoi(parts[0])
		d, err2 := strconv.Atoi(parts[1])
		if err1 != nil || err2 != nil {
			return r, nil, fmt.Errorf("numstat record %q", rec)
		}
		all[i].Added, all[i].Deleted = a, d
	}
	if len(all) > 0 {
		if sep, ok := next(); !ok || sep != "" {
			return r, nil, fmt.Errorf("no separator before the patch")
		}
	}
	r.Diff = rest
	for _, f := range all {
		if f.Path == ReasonixDir || strings.HasPrefix(f.Path, ReasonixDir+"/") {
			r.ReasonixChanges = append(r.ReasonixChanges, f.Path)
			continue
		}
		r.Files = append(r.Files, f)
	}
	return r, all, nil
}

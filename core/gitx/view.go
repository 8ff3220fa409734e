package gitx

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// ReasonTampered: the worktree's .git is not the link written when the worktree was created.
const ReasonTampered = "worktree_tampered"

// neutralAttributes is the view's info/attributes, the one file git ranks above every
// .gitattributes of a worktree: each attribute that would change the bytes stored, run a
// program, or decide how a file is shown is unspecified, so git stores the bytes on disk and
// tells text from binary by content (a NUL in the first 8,000 bytes).
const neutralAttributes = "* !text !eol !crlf !ident !filter !diff !merge !working-tree-encoding\n"

// viewConfig is the view's whole config: none of the repository's, so no filter, textconv,
// diff driver, fsmonitor or conversion it defines can apply to a worker's files. Nested
// repositories are never entered (a status that recursed into one would run git with that
// repository's config, the worker's); every status of a view also says --ignore-submodules=all.
const viewConfig = "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfilemode = true\n\tsymlinks = true\n\tlogallrefupdates = false\n" +
	"[diff]\n\tignoreSubmodules = all\n[status]\n\tsubmoduleSummary = false\n[submodule]\n\trecurse = false\n"

// maxExcludeBytes bounds the copy of the repository's info/exclude into a view.
const maxExcludeBytes = 1 << 20

// A view is a private git directory through which git reads a task's worktree: the task
// repository's objects, and nothing else of it or of the worktree's .git — no config,
// attributes, hooks, refs or index. Every git process that reads a worktree's files runs in a
// view; everything else runs inRepository.
type view struct {
	gitDir, objects, worktree string
}

// newView lays out a view in dir (a private temporary folder) for wt, its HEAD detached at head.
func newView(dir string, wt Worktree, head string) (view, error) {
	v := view{gitDir: filepath.Join(dir, "git"), objects: filepath.Join(wt.CommonDir, "objects"), worktree: wt.Path}
	files := map[string][]byte{"HEAD": []byte(head + "\n"), "config": []byte(viewConfig), "info/attributes": []byte(neutralAttributes)}
	// A repository's info/exclude as git init writes it holds only comments: nothing to copy.
	if exclude := readBounded(filepath.Join(wt.CommonDir, "info", "exclude"), maxExcludeBytes); hasPattern(exclude) {
		files["info/exclude"] = exclude
	}
	// Each directory and file costs a journaled metadata update, twice with the removal, and a
	// view is laid out several times per task: only what git needs. Git takes a directory with
	// HEAD, refs and (here through GIT_OBJECT_DIRECTORY) objects for a repository; the view's
	// HEAD is always detached, so refs stays empty.
	for _, d := range []string{"info", "refs"} {
		if err := os.MkdirAll(filepath.Join(v.gitDir, d), 0o700); err != nil {
			return view{}, &Error{Code: CodeInternal, Reason: ReasonGitFailed, Message: "private git directory", Err: err}
		}
	}
	for name, content := range files {
		if err := writeIfChanged(filepath.Join(v.gitDir, filepath.FromSlash(name)), content, 0o600); err != nil {
			return view{}, &Error{Code: CodeInternal, Reason: ReasonGitFailed, Message: "private git directory", Err: err}
		}
	}
	return v, nil
}

// hasPattern reports whether an exclude file has a line git reads as a pattern: one that is
// neither empty nor a comment ("#…"; "\#…" is a pattern). A line of blanks counts as one, as
// it did when every file was copied.
func hasPattern(exclude []byte) bool {
	for line := range bytes.Lines(exclude) {
		if t := bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r")); len(t) > 0 && t[0] != '#' {
			return true
		}
	}
	return false
}

// setHead detaches the view's HEAD at commit: status then compares the index with it.
func (v view) setHead(commit string) error {
	return os.WriteFile(filepath.Join(v.gitDir, "HEAD"), []byte(commit+"\n"), 0o600)
}

// at is the view over the worktree's files with index as the index.
func (v view) at(index string) place {
	return place{dir: v.worktree, env: []string{
		"GIT_DIR=" + v.gitDir, "GIT_WORK_TREE=" + v.worktree, "GIT_OBJECT_DIRECTORY=" + v.objects, "GIT_INDEX_FILE=" + index,
	}}
}

// bare is the view without a work tree, for diffs of objects: only the view's attributes apply.
func (v view) bare() place {
	return place{dir: v.gitDir, env: []string{"GIT_DIR=" + v.gitDir, "GIT_OBJECT_DIRECTORY=" + v.objects},
		conf: []string{"-c", "core.bare=true"}}
}

// readBounded reads at most limit bytes of a regular file; anything else reads as nothing.
func readBounded(path string, limit int64) []byte {
	// Non-blocking, so that a FIFO put in a file's place cannot hold the caller.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil
	}
	b, _ := io.ReadAll(io.LimitReader(f, limit))
	return b
}

// adminDirs remembers the private git directory found for a worktree recorded without one.
var adminDirs sync.Map

// adminDir is the worktree's private git directory in the repository (<common>/worktrees/<n>):
// the one recorded at creation or, for a record made before it was recorded, the entry of the
// repository whose gitdir file names this worktree. It is never read from the worktree.
func (w Worktree) adminDir() (string, error) {
	if w.AdminDir != "" {
		return w.AdminDir, nil
	}
	if d, ok := adminDirs.Load(w.Path); ok {
		return d.(string), nil
	}
	if !filepath.IsAbs(w.CommonDir) || !filepath.IsAbs(w.Path) {
		return "", badInput("a worktree needs an absolute path and common directory")
	}
	want := filepath.Join(w.Path, ".git")
	entries, _ := os.ReadDir(filepath.Join(w.CommonDir, "worktrees"))
	for _, e := range entries {
		dir := filepath.Join(w.CommonDir, "worktrees", e.Name())
		if strings.TrimSpace(string(readBounded(filepath.Join(dir, "gitdir"), 4096))) == want {
			adminDirs.Store(w.Path, dir)
			return dir, nil
		}
	}
	return "", newErr(CodeOwnershipAmbiguous, ReasonTampered, "the repository has no worktree entry for %s", w.Path)
}

// gitLink is the exact content of the worktree's .git: as read at creation, or as git 2.39
// writes it for the private git directory.
func (w Worktree) gitLink() (string, error) {
	if w.GitLink != "" {
		return w.GitLink, nil
	}
	dir, err := w.adminDir()
	if err != nil {
		return "", err
	}
	return "gitdir: " + dir + "\n", nil
}

// CheckLink refuses a worktree whose .git is anything but the link written at its creation: a
// regular file holding exactly those bytes (ownership_ambiguous, reason worktree_tampered,
// saying what it found). It reads one small file.
func CheckLink(wt Worktree) error {
	want, err := wt.gitLink()
	if err != nil {
		return err
	}
	p := filepath.Join(wt.Path, ".git")
	st, err := os.Lstat(p)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return newErr(CodeOwnershipAmbiguous, ReasonTampered, "the worktree's .git is gone")
	case err != nil:
		return &Error{Code: CodeOwnershipAmbiguous, Reason: ReasonTampered, Message: "the worktree's .git cannot be read", Err: err}
	case st.Mode()&os.ModeSymlink != 0:
		return newErr(CodeOwnershipAmbiguous, ReasonTampered, "the worktree's .git was replaced by a symlink")
	case st.IsDir():
		return newErr(CodeOwnershipAmbiguous, ReasonTampered, "the worktree's .git was replaced by a directory (a repository of its own)")
	case !st.Mode().IsRegular():
		return newErr(CodeOwnershipAmbiguous, ReasonTampered, "the worktree's .git is not a regular file (%s)", st.Mode().Type())
	}
	got := readBounded(p, int64(len(want))+1)
	if !bytes.Equal(got, []byte(want)) {
		return newErr(CodeOwnershipAmbiguous, ReasonTampered, "the worktree's .git was rewritten: it should link to %s", strings.TrimSpace(strings.TrimPrefix(want, "gitdir: ")))
	}
	return nil
}

// IsTampered reports whether err is CheckLink's refusal.
func IsTampered(err error) bool {
	var ge *Error
	return errors.As(err, &ge) && ge.Reason == ReasonTampered
}

// Changes returns the worktree's HEAD commit and what its files hold beyond it — changed,
// deleted and untracked paths, untracked .reasonix files excepted — sorted, at most limit. A
// worktree whose .git was rewritten is refused (worktree_tampered): its state is not known.
func Changes(ctx context.Context, wt Worktree, limit int) (head string, paths []string, err error) {
	if err := CheckLink(wt); err != nil {
		return "", nil, err
	}
	l, err := headOf(ctx, wt)
	if err != nil {
		return "", nil, err
	}
	admin, err := wt.adminDir()
	if err != nil {
		return "", nil, err
	}
	tx, err := newReviewTx(Worktree{Path: wt.Path, CommonDir: wt.CommonDir, Base: l[0]})
	if err != nil {
		return "", nil, err
	}
	defer tx.close()
	out, err := tx.cmdOn(filepath.Join(admin, "index"), "status", "--porcelain=v2", "-z",
		"--untracked-files=all", "--ignore-submodules=all", "--no-renames").must(ctx, CodeInternal, ReasonGitFailed)
	if err != nil {
		return "", nil, err
	}
	st, err := parseStatus(out)
	if err != nil {
		return "", nil, &Error{Code: CodeInternal, Reason: ReasonGitFailed, Message: "unexpected status output", Err: err}
	}
	paths = st.paths(func(e statusEntry) bool { return e.kind != '!' })
	if len(paths) > limit {
		paths = paths[:limit]
	}
	return l[0], paths, nil
}

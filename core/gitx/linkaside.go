package gitx

import (
	"errors"
	"os"
	"path/filepath"
)

// SetLinkAside removes the worktree's .git link, after CheckLink has found it exactly as written
// at creation, for as long as checks read the worktree: a check's view of the tree then has no
// .git (git and Go's VCS stamping inside a check find no repository, as in the commit's tree)
// without the sandbox re-laying out the worktree's top folder entry by entry, which costs a
// mount per entry. None of reasonixctl's git reads the link (see the package's places). restore
// writes the same bytes back; after a crash in between, RestoreLink does.
func SetLinkAside(wt Worktree) (restore func() error, err error) {
	if err := CheckLink(wt); err != nil {
		return nil, err
	}
	if err := os.Remove(filepath.Join(wt.Path, ".git")); err != nil {
		return nil, &Error{Code: CodeInternal, Reason: ReasonGitFailed, Message: "setting the worktree's .git aside", Err: err}
	}
	return func() error { return RestoreLink(wt) }, nil
}

// RestoreLink writes the worktree's .git link back when it is missing; anything found there is
// left for CheckLink to judge.
func RestoreLink(wt Worktree) error {
	want, err := wt.gitLink()
	if err != nil {
		return err
	}
	p := filepath.Join(wt.Path, ".git")
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return CheckLink(wt)
	}
	if err != nil {
		return &Error{Code: CodeInternal, Reason: ReasonGitFailed, Message: "restoring the worktree's .git", Err: err}
	}
	_, err = f.WriteString(want)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(p)
		return &Error{Code: CodeInternal, Reason: ReasonGitFailed, Message: "restoring the worktree's .git", Err: err}
	}
	return CheckLink(wt)
}

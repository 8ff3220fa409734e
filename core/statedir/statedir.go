// Package statedir is the one check every mode makes of the state directory before it opens
// anything in it — the store, grants.json, the log, the active-task records, the owner's socket:
// the directory must be ours and closed to everyone else. A directory another user owns or may
// change holds what they chose to put there: their standing grants would allow commands, their
// active records would steer the guard, their socket would answer for the owner.
//
// It is a leaf that imports nothing of this module, because every layer needs the same check in
// the same words: cmd/reasonixctl before each mode starts, core/remote before it puts the owner's
// socket in the directory and before a client dials one there, and core/doctor to report it;
// store must not import core, and none of them should import cmd.
package statedir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// ErrUnsafe is the cause of every refusal: errors.Is(err, ErrUnsafe) holds for an *Error.
var ErrUnsafe = errors.New("unsafe state directory")

// Error is a refusal: what is wrong with Dir and how to fix it, in words a person can act on.
type Error struct {
	Dir     string
	Problem string // "is owned by uid 1001, not by you (uid 1000)"
	Fix     string // "run chmod 700 DIR"
}

func (e *Error) Error() string { return "state directory " + e.Dir + " " + e.Problem + ": " + e.Fix }

// Is makes every *Error an ErrUnsafe.
func (e *Error) Is(target error) bool { return target == ErrUnsafe }

// useYourOwn is the fix when the directory is not ours to repair.
const useYourOwn = "use a state directory of your own, e.g. unset CODEX_REASONIX_STATE_DIR"

// Ensure creates dir (0700, and any missing parents 0700) when it does not exist, and then
// checks it as Check does. Every mode calls it before it opens anything in dir. A directory that
// someone else creates between our look and our mkdir is still theirs afterwards, and refused.
func Ensure(dir string) error {
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("create the state directory: %w", err)
		}
	}
	return check(dir, false)
}

// Check refuses dir unless it is a directory owned by us (the effective uid, root included:
// root could read another user's directory, which is exactly what must not happen) that nobody
// else may enter, list or change (mode & 0o077 == 0), reached through no symlink someone else
// owns and inside no directory everyone may write. A dir that does not exist yet passes when its
// existing parents do: nothing in it can be trusted or distrusted yet. It changes nothing, so
// the doctor reports with it.
func Check(dir string) error { return check(dir, true) }

func check(dir string, missingOK bool) error {
	dir = filepath.Clean(dir)
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist) && missingOK:
		return parentsProblem(dir)
	case err != nil:
		return fmt.Errorf("state directory: %w", err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		if e := ownerProblem(dir, fi, "is a symlink owned by uid %d, not by you (uid %d)"); e != nil {
			return e
		}
		if fi, err = os.Stat(dir); err != nil {
			return fmt.Errorf("state directory: %w", err)
		}
	}
	if !fi.IsDir() {
		return &Error{Dir: dir, Problem: "is not a directory", Fix: "remove it, or " + useYourOwn}
	}
	if e := ownerProblem(dir, fi, "is owned by uid %d, not by you (uid %d)"); e != nil {
		return e
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return &Error{Dir: dir, Problem: fmt.Sprintf("has mode %04o, so others may enter or change it", perm), Fix: "run chmod 700 " + dir}
	}
	return parentsProblem(dir)
}

// ownerProblem refuses fi unless our effective uid owns it; problem is a format taking its
// owner's uid and ours.
func ownerProblem(dir string, fi fs.FileInfo, problem string) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return &Error{Dir: dir, Problem: "has an owner this platform cannot read", Fix: useYourOwn}
	}
	if me := os.Geteuid(); int(st.Uid) != me {
		return &Error{Dir: dir, Problem: fmt.Sprintf(problem, st.Uid, me), Fix: useYourOwn}
	}
	return nil
}

// parentsProblem refuses dir when a directory above it, as named or as its symlinks resolve,
// lets everyone write without the sticky bit: anyone could then rename dir away and put another
// in its place. Group-writable parents pass: with the per-user groups most Linux systems use,
// umask 002 makes ~/.local and the like group-writable, and the group is the user's own. The
// owners of the parents are not held to ours either: inside a user namespace (a rootless
// container, toolbox) / and /usr belong to the overflow uid 65534.
func parentsProblem(dir string) error {
	for _, p := range parents(dir) {
		fi, err := os.Stat(p)
		if err != nil {
			continue // a parent still to be created; the one that exists above it is checked
		}
		if perm := fi.Mode(); perm.Perm()&0o002 != 0 && perm&fs.ModeSticky == 0 {
			return &Error{Dir: dir, Problem: fmt.Sprintf("is inside %s, which everyone may write (mode %04o), so anyone could replace it", p, perm.Perm()),
				Fix: "run chmod o-w " + p + ", or " + useYourOwn}
		}
	}
	return nil
}

// parents lists the directories above dir as written and, where symlinks lead elsewhere, above
// where they lead.
func parents(dir string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(d string) {
		for p := filepath.Dir(d); !seen[p]; p = filepath.Dir(p) {
			seen[p] = true
			out = append(out, p)
		}
	}
	add(dir)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		add(real)
	} else if real, err := filepath.EvalSymlinks(filepath.Dir(dir)); err == nil {
		add(filepath.Join(real, filepath.Base(dir)))
	}
	return out
}

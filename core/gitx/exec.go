package gitx

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

var execs atomic.Int64

// Execs returns how many git processes this package has started.
func Execs() int64 { return execs.Load() }

// safeConfig keeps repository and user settings from running programs behind our back: no hooks
// (also for update-ref's reference-transaction hook), no fsmonitor daemon, no pager, no transport.
var safeConfig = []string{
	"-c", "core.hooksPath=/dev/null",
	"-c", "core.fsmonitor=false",
	"-c", "core.pager=cat",
	"-c", "protocol.allow=never",
}

var gitPath = sync.OnceValues(func() (string, error) { return exec.LookPath("git") })

// sanitisedEnv is the whole environment of every git process: nothing inherited can point git at
// another repository, index or config, and output is stable (LC_ALL=C).
func sanitisedEnv() []string {
	path := os.Getenv("PATH")
	if path == "" {
		path = "/usr/local/bin:/usr/bin:/bin"
	}
	env := []string{
		"PATH=" + path,
		"LC_ALL=C",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_ATTR_NOSYSTEM=1",
		"GIT_OPTIONAL_LOCKS=0",
		"GIT_PAGER=cat",
		"PAGER=cat",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_NO_REPLACE_OBJECTS=1",
	}
	if tmp := os.Getenv("TMPDIR"); tmp != "" {
		env = append(env, "TMPDIR="+tmp)
	}
	return env
}

// A place is where a git process runs and how it finds its repository. There are three (the
// caller's checkout, the task's repository, a private view of a worktree), and discovery from a
// task's worktree is none of them: the worktree's .git is the worker's to write, and a git that
// followed it would read a repository, config and filters of the worker's choosing.
type place struct {
	dir  string   // working directory
	env  []string // GIT_DIR and friends, added to sanitisedEnv
	conf []string // -c settings ahead of the command's own
}

// inCheckout is the person's own checkout, the source of a task: its repository is found the
// ordinary way, since the person, not the worker, owns it.
func inCheckout(root string) place { return place{dir: root} }

// inRepository is the task's repository by its common git directory, without a work tree:
// objects, refs and branches. No file of any checkout is read, so no attribute applies.
func inRepository(commonDir string) place {
	return place{dir: commonDir, env: []string{"GIT_DIR=" + commonDir}, conf: []string{"-c", "core.bare=true"}}
}

// inAdminDir is a linked worktree as the repository keeps it (its HEAD, index and the common
// directory its commondir file names), without its work tree.
func inAdminDir(adminDir string) place {
	return place{dir: adminDir, env: []string{"GIT_DIR=" + adminDir}, conf: []string{"-c", "core.bare=true"}}
}

// gitCmd is one git invocation.
type gitCmd struct {
	at       place
	args     []string
	env      []string // added to sanitisedEnv and the place's
	fullEnv  []string // replaces sanitisedEnv when set
	stdin    []byte
	noConfig bool // omit safeConfig
}

func (c gitCmd) run(ctx context.Context) ([]byte, error) {
	git, err := gitPath()
	if err != nil {
		return nil, &Error{Code: CodeInternal, Reason: ReasonGitFailed, Message: "git not found", Err: err}
	}
	if c.at.dir == "" {
		return nil, badInput("git %s without a place to run", strings.Join(c.args, " "))
	}
	args := append(slices.Clone(c.at.conf), c.args...)
	if !c.noConfig {
		args = append(slices.Clone(safeConfig), args...)
	}
	execs.Add(1)
	cmd := exec.CommandContext(ctx, git, args...)
	cmd.Dir = c.at.dir
	cmd.SysProcAttr = childAttr()
	cmd.Env = c.fullEnv
	if cmd.Env == nil {
		cmd.Env = sanitisedEnv()
	}
	cmd.Env = append(append(cmd.Env, c.at.env...), c.env...)
	if c.stdin != nil {
		cmd.Stdin = bytes.NewReader(c.stdin)
	}
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return stdout.Bytes(), ctx.Err()
		}
		ge := &GitError{Args: c.args, ExitCode: -1, Stderr: strings.TrimSpace(truncate(stderr.String(), 2000))}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			ge.ExitCode = ee.ExitCode()
		}
		return stdout.Bytes(), ge
	}
	return stdout.Bytes(), nil
}

// git runs args at a place and wraps a failure as an *Error with code and reason.
func git(ctx context.Context, code, reason string, at place, args ...string) ([]byte, error) {
	return gitCmd{at: at, args: args}.must(ctx, code, reason)
}

func (c gitCmd) must(ctx context.Context, code, reason string) ([]byte, error) {
	out, err := c.run(ctx)
	if err != nil {
		return out, wrap(code, reason, err)
	}
	return out, nil
}

func wrap(code, reason string, err error) error {
	var e *Error
	if errors.As(err, &e) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	msg := "git failed"
	var ge *GitError
	if errors.As(err, &ge) && len(ge.Args) > 0 {
		msg = "git " + ge.Args[0] + " failed"
	}
	return &Error{Code: code, Reason: reason, Message: msg, Err: err}
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// exitCode returns the exit code of a failed git process, or -1.
func exitCode(err error) int {
	var ge *GitError
	if errors.As(err, &ge) {
		return ge.ExitCode
	}
	return -1
}

func lines(out []byte) []string {
	s := strings.TrimRight(string(out), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"reasonixctl/core/safetext"
	"reasonixctl/core/statedir"
)

// stateDir is where tasks, worktrees and logs live, once statedir.Ensure has passed it: created
// 0700 when missing, else ours and closed to everyone else. Every mode gets the directory from
// here (or, given one, checks it the same way) before it opens anything in it, so none reads a
// directory someone else could have filled: their grants.json, their active records, their log.
func stateDir() (string, error) {
	dir, err := stateDirPath()
	if err != nil {
		return "", err
	}
	if err := statedir.Ensure(dir); err != nil {
		return "", err
	}
	return dir, nil
}

// stateDirPath is where the state directory is, unchecked: CODEX_REASONIX_STATE_DIR, else
// $XDG_STATE_HOME/reasonixctl, else ~/.local/state/reasonixctl. Only what opens nothing in it
// uses it as is: the doctor, which reports on it, and the hook command line, which names it.
func stateDirPath() (string, error) {
	if d := os.Getenv("CODEX_REASONIX_STATE_DIR"); d != "" {
		return filepath.Abs(d)
	}
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "reasonixctl"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no state directory: set CODEX_REASONIX_STATE_DIR or HOME: %w", err)
	}
	return filepath.Join(home, ".local", "state", "reasonixctl"), nil
}

// openLog opens the log file under the state directory, which the caller has checked. With
// alsoStderr the log is mirrored to stderr, which only --mcp mode may ask for: the dashboard
// owns the terminal.
func openLog(dir string, alsoStderr bool) (*slog.Logger, io.Closer, error) {
	logDir := filepath.Join(dir, "logs")
	if err := os.MkdirAll(logDir, 0o700); err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(filepath.Join(logDir, "reasonixctl.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, err
	}
	var w io.Writer = f
	if alsoStderr {
		w = io.MultiWriter(f, os.Stderr)
	}
	return slog.New(safetext.NewLogHandler(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo}))), f, nil
}

// stateAndLog resolves the state directory and opens its log for a mode. On failure it has told
// the user why and returns the exit code to use; otherwise code is 0 and closeLog must be called.
func stateAndLog(stderr io.Writer, alsoStderr bool) (dir string, log *slog.Logger, closeLog func(), code int) {
	dir, log, closer, err := openState(alsoStderr)
	if err != nil {
		fmt.Fprintln(stderr, "reasonixctl:", err)
		return "", nil, nil, 1
	}
	return dir, log, func() { closer.Close() }, 0
}

// openState resolves and checks the state directory, and then opens its log.
func openState(alsoStderr bool) (string, *slog.Logger, io.Closer, error) {
	dir, err := stateDir()
	if err != nil {
		return "", nil, nil, err
	}
	log, closer, err := openLog(dir, alsoStderr)
	if err != nil {
		return "", nil, nil, fmt.Errorf("log file: %w", err)
	}
	return dir, log, closer, nil
}

package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Issue 30: serve whose state directory is deleted while it runs stops promptly on SIGTERM and
// says why on stderr, instead of hanging in its close.
func TestServeStopsPromptlyWhenItsStateDirectoryIsDeleted(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	if err := os.Mkdir(state, 0o700); err != nil {
		t.Fatal(err)
	}
	bin, err := buildBinaries()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(bin, "reasonixctl"), "serve")
	cmd.Env = append(os.Environ(), "CODEX_REASONIX_STATE_DIR="+state)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var waitErr error
	exited := make(chan struct{})
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		select {
		case <-exited:
		default:
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	c := dialUntil(t, ctx, state)
	c.Close()
	if err := os.RemoveAll(state); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
		t.Logf("serve exited %v after SIGTERM: %v; stderr: %s", time.Since(start), waitErr, stderr.String())
	case <-time.After(10 * time.Second):
		t.Fatalf("serve still running 10 s after SIGTERM with its state directory deleted; stderr: %s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "state directory was deleted") || !strings.Contains(stderr.String(), state) {
		t.Fatalf("serve does not say its state directory is gone: %q", stderr.String())
	}
}

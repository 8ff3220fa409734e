package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"reasonixctl/core"
	"reasonixctl/core/baseline"
	"reasonixctl/core/contract"
)

// baseCheckLines is how many of a dropped check's first failing lines are quoted.
const baseCheckLines = 5

// checkOnBase runs c's verification commands on the HEAD commit of the checkout at dir, in the
// sandbox finalize uses, telling the person on w what it does (the first run of a Go or Rust
// project compiles its toolchain's caches, which takes minutes).
func checkOnBase(dir string, c *contract.Contract, w io.Writer) (string, []core.BaseCheck, error) {
	state, err := stateDir()
	if err != nil {
		return "", nil, err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if len(c.Verification) > 0 {
		fmt.Fprintf(w, "Running %d verification command(s) on the checkout's HEAD, sandboxed as finalize runs them (the first Go or Rust build fills the cache and can take minutes)…\n", len(c.Verification))
	}
	return baseline.CheckHEAD(ctx, baseline.Options{
		StateDir: state, Dir: dir, AllowUnsandboxed: os.Getenv("CODEX_REASONIX_ALLOW_UNSANDBOXED") == "true",
		Network: os.Getenv("CODEX_REASONIX_NETWORK") == "on",
	}, c)
}

// knownFailureLines is how many of a kept check's failures on the base are named.
const knownFailureLines = 10

// reportBaseChecks says, per command, how it fared on the base commit; it returns the ids that
// failed there in a way finalize cannot tell from a failure a change causes. A command whose
// failures there its toolchain names (core.BaselineResult.FailuresKnown) is not returned: its
// failures are named, and finalize can excuse exactly those and stops at any other.
func reportBaseChecks(w io.Writer, base string, checks []core.BaseCheck, failedVerb, knownVerb string) (failed []string) {
	short := base
	if len(short) > 12 {
		short = short[:12]
	}
	for _, ch := range checks {
		cmd := core.ShellWords(ch.Argv)
		switch {
		case ch.Baseline.Status == core.BaselinePassed:
			fmt.Fprintf(w, "Passes on %s: %s (%s).\n", short, ch.ID, cmd)
		case ch.Baseline.FailuresKnown():
			fs := ch.Baseline.Failures
			fmt.Fprintf(w, "%s %s (%s): it fails on %s, before any change, with %d known failure(s); finalize can excuse exactly these and stops at any other:\n",
				knownVerb, ch.ID, cmd, short, len(fs))
			for i, f := range fs {
				if i == knownFailureLines {
					fmt.Fprintf(w, "    … and %d more\n", len(fs)-i)
					break
				}
				line := f.ID
				if f.Message != "" && f.Message != f.ID && !strings.Contains(f.ID, f.Message) {
					line += ": " + f.Message
				}
				fmt.Fprintf(w, "    - %s\n", line)
			}
		case ch.Baseline.Status == core.BaselineFailed:
			failed = append(failed, ch.ID)
			fmt.Fprintf(w, "%s %s (%s): it fails on %s, before any change:\n", failedVerb, ch.ID, cmd, short)
			for _, l := range strings.Split(core.FirstFailingLines(ch.Baseline, baseCheckLines), "\n") {
				fmt.Fprintf(w, "    %s\n", l)
			}
		default:
			fmt.Fprintf(w, "Not checked, kept: %s (%s): %s\n", ch.ID, cmd, ch.Baseline.Reason)
		}
	}
	return failed
}

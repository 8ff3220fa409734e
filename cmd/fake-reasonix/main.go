// Command fake-reasonix is a scripted stand-in for the Reasonix worker, started exactly like it
// (`fake-reasonix acp [flags]`), so REASONIX_BIN can point at it. The scenario comes from
// --scenario FILE or FAKE_REASONIX_SCENARIO; without one it plays the default "implement"
// scenario. --legacy-options (or FAKE_REASONIX_LEGACY=1) offers the earlier worker's options.
// Flags the real worker takes (--profile, --planner, --sandbox-*, --workspace-only, …) are
// accepted and ignored.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"reasonixctl/acp/acptest"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "--version" || args[0] == "version") {
		fmt.Fprintf(stdout, "reasonix %s (fake)\n", acptest.Version)
		return 0
	}
	acp := false
	scenarioPath := os.Getenv("FAKE_REASONIX_SCENARIO")
	legacy := os.Getenv("FAKE_REASONIX_LEGACY") == "1"
	level := slog.LevelWarn
	if os.Getenv("FAKE_REASONIX_DEBUG") == "1" {
		level = slog.LevelDebug
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "acp":
			acp = true
		case a == "--legacy-options":
			legacy = true
		case a == "--scenario" && i+1 < len(args):
			i++
			scenarioPath = args[i]
		case strings.HasPrefix(a, "--scenario="):
			scenarioPath = strings.TrimPrefix(a, "--scenario=")
		case a == "--profile" && i+1 < len(args):
			i++ // the real worker's retired preset flag takes a value
		}
	}
	if !acp {
		fmt.Fprintln(stderr, "usage: fake-reasonix acp [--scenario FILE] [--legacy-options]")
		return 2
	}
	opts := acptest.Options{Legacy: legacy, Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))}
	if scenarioPath != "" {
		sc, err := acptest.LoadScenario(scenarioPath)
		if err != nil {
			fmt.Fprintln(stderr, "fake-reasonix:", err)
			return 2
		}
		opts.Scenario = sc
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := acptest.Serve(ctx, stdin, stdout, opts)
	var crash *acptest.CrashError
	switch {
	case errors.As(err, &crash):
		if crash.Stderr != "" {
			fmt.Fprintln(stderr, crash.Stderr)
		}
		return max(crash.ExitCode, 1)
	case errors.Is(err, context.Canceled):
		return 0
	case err != nil:
		fmt.Fprintln(stderr, "fake-reasonix:", err)
		return 1
	}
	return 0
}

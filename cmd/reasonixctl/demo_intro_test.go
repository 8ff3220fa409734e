package main

import (
	"strings"
	"testing"
)

// The demo's first note says where it runs, that the prompt about to open is its worker asking
// (for the command the scripted worker asks about) and what comes after.
func TestDemoIntroSaysWhatComes(t *testing.T) {
	n := demoIntro("/tmp/reasonixctl-demo-1/repo")
	text := strings.Join(n.Lines, "\n")
	var asks string
	for _, step := range demoScenario().Turns[0].Steps {
		if step.Shell != nil && step.Permission == "ask" {
			asks = step.Shell.Command
		}
	}
	for _, want := range []string{"/tmp/reasonixctl-demo-1/repo", "`" + asks + "`", "the worker asking you", "a allows", "d denies", "F finalizes"} {
		if asks == "" || !strings.Contains(text, want) {
			t.Fatalf("the demo's note lacks %q:\n%s", want, text)
		}
	}
}

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// The demo teaches review: every greet.go its worker writes must build, or it teaches that
// review passes broken code.
func TestDemoWorkerWritesGoThatBuilds(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go toolchain")
	}
	versions := map[string]string{"base": demoGreetBase}
	s := demoScenario()
	for i, step := range s.Turns[0].Steps {
		if step.Write != nil && step.Write.Path == "greet/greet.go" {
			versions["turn-"+strconv.Itoa(i)] = step.Write.Content
		}
	}
	for i, step := range s.After.Steps {
		if step.Write != nil && step.Write.Path == "greet/greet.go" {
			versions["repair-"+strconv.Itoa(i)] = step.Write.Content
		}
	}
	if len(versions) < 3 {
		t.Fatalf("found %d versions of greet.go, want the base, the turn's and the repair's", len(versions))
	}
	for name, src := range versions {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module demo\n\ngo 1.21\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, "greet"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "greet", "greet.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(goBin, "vet", "./...")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: greet.go does not build: %v\n%s", name, err, out)
		}
	}
}

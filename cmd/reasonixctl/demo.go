package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"reasonixctl/acp/acptest"
	"reasonixctl/core"
	"reasonixctl/core/doctor"
	"reasonixctl/core/engine"
	"reasonixctl/core/statedir"
	"reasonixctl/tui"
)

// demoScenario is what the built-in scripted worker does in the demo: it streams text, asks to
// run a command the policy does not know (so the permission prompt appears), writes three files
// (one Go file it edits, so the diff has changed lines to compare) and stops for review. A
// repair round (a steer, or review comments sent with C) rewrites one line of the Go file.
func demoScenario() *acptest.Scenario {
	return &acptest.Scenario{
		Name: "demo",
		Turns: []acptest.Turn{{
			Steps: []acptest.Step{
				{Plan: []acptest.PlanEntry{{Content: "Read the README", Status: "in_progress"}, {Content: "Run the project's checks", Status: "pending"}, {Content: "Write hello.txt and NOTES.md", Status: "pending"}}},
				{Text: "Reading the repository first, so the greeting matches its tone.", Chunks: 6, DelayMS: 150},
				{Read: "README.md", DelayMS: 300},
				{Plan: []acptest.PlanEntry{{Content: "Read the README", Status: "completed"}, {Content: "Run the project's checks", Status: "in_progress"}, {Content: "Write hello.txt and NOTES.md", Status: "pending"}}},
				{Text: "Before changing anything I'd like to run the project's checks.", Chunks: 5, DelayMS: 150},
				{Shell: &acptest.Shell{Command: "make check", Output: "all checks passed\n"}, Permission: "ask"},
				{Plan: []acptest.PlanEntry{{Content: "Read the README", Status: "completed"}, {Content: "Run the project's checks", Status: "completed"}, {Content: "Write hello.txt and NOTES.md", Status: "in_progress"}}},
				{Text: "Writing the greeting and a short note.", Chunks: 4, DelayMS: 150},
				{Write: &acptest.WriteFile{Path: "hello.txt", Content: "Hello from the reasonixctl demo!\n"}, Permission: "ask", DelayMS: 300},
				{Write: &acptest.WriteFile{Path: "NOTES.md", Content: "# Notes\n\n- hello.txt greets whoever runs the demo.\n- `greet.Hello` now greets *the world* when no name is given.\n- Nothing outside the write scope was touched.\n"}, Permission: "ask", DelayMS: 300},
				{Write: &acptest.WriteFile{Path: "greet/greet.go", Content: demoGreet("return fmt.Sprintf(\"Hello, %s!\", name)")}, Permission: "ask", DelayMS: 300},
				{Usage: &acptest.Usage{PromptTokens: 5120, CompletionTokens: 410}},
				{Plan: []acptest.PlanEntry{{Content: "Read the README", Status: "completed"}, {Content: "Run the project's checks", Status: "completed"}, {Content: "Write hello.txt and NOTES.md", Status: "completed"}}},
				{Text: "Done: hello.txt holds the greeting and NOTES.md explains it. Ready for your review.", Chunks: 5, DelayMS: 120},
			},
			Summary: "Added hello.txt with a greeting and NOTES.md describing it; greet.Hello greets the world by default.",
		}},
		After: &acptest.Turn{Steps: []acptest.Step{
			{Text: "Addressing the review.", Chunks: 3, DelayMS: 150},
			{Write: &acptest.WriteFile{Path: "greet/greet.go", Content: demoGreet("return fmt.Sprintf(\"Hello, %s! Welcome.\", name)")}, DelayMS: 300},
			{Text: "Changed the greeting in greet.go; ready for another look.", Chunks: 4, DelayMS: 120},
		}, Summary: "Reworded the greeting in greet/greet.go."},
	}
}

// demoGreetBase is greet/greet.go as the demo repository starts with it.
const demoGreetBase = `package greet

import "fmt"

// Hello greets name.
func Hello(name string) string {
	return fmt.Sprintf("Hello %s", name)
}
`

// demoGreet is greet/greet.go as the worker writes it, with ret as its last statement.
func demoGreet(ret string) string {
	return `package greet

import "fmt"

// Hello greets name, or the world when name is empty.
func Hello(name string) string {
	if name == "" {
		name = "world"
	}
	` + ret + `
}
`
}

const demoContract = `{
  "schema_version": 1,
  "objective": "Add a friendly greeting to the repository",
  "user_outcome": "hello.txt greets the reader and NOTES.md says why",
  "write_scope": ["hello.txt", "NOTES.md", "greet/greet.go"],
  "acceptance_criteria": [
    {"id": "greeting", "requirement": "hello.txt exists and is not empty", "evidence": "automated"},
    {"id": "reads-well", "requirement": "the greeting and the note read well", "evidence": "review"}
  ],
  "verification": [{"id": "greeting-present", "argv": ["test", "-s", "hello.txt"], "proves": ["greeting"]}]
}`

// runDemo runs the dashboard over a throw-away repository and the built-in scripted worker:
// no Reasonix, no provider and no other binary needed.
func runDemo(stdout, stderr io.Writer) int {
	root, err := os.MkdirTemp("", "reasonixctl-demo-")
	if err != nil {
		fmt.Fprintln(stderr, "reasonixctl demo:", err)
		return 1
	}
	repo := filepath.Join(root, "repo")
	if err := makeDemoRepo(repo); err != nil {
		fmt.Fprintln(stderr, "reasonixctl demo:", err)
		return 1
	}
	state := filepath.Join(root, "state")
	if err := statedir.Ensure(state); err != nil {
		fmt.Fprintln(stderr, "reasonixctl demo:", err)
		return 1
	}
	log, closeLog, err := openLog(state, false)
	if err != nil {
		fmt.Fprintln(stderr, "reasonixctl demo:", err)
		return 1
	}
	defer closeLog.Close()
	// The demo's one verification command is fixed and runs in a throw-away repository, so a
	// machine without bubblewrap may still run it unsandboxed.
	unsandboxed := !doctor.SandboxAvailable()
	e, err := engine.Open(engine.Config{
		StateDir: state, Mode: "demo", Logger: log, PermissionMode: core.PermissionSupervised,
		AllowUnsandboxed: unsandboxed,
		Worker: engine.PipeWorker(func(ctx context.Context, r io.Reader, w io.Writer) error {
			return acptest.Serve(ctx, r, w, acptest.Options{Scenario: demoScenario(), Logger: log})
		}),
	})
	if err != nil {
		fmt.Fprintln(stderr, "reasonixctl demo:", err)
		return 1
	}
	defer e.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Another terminal can attach to the demo (CODEX_REASONIX_STATE_DIR=<state> reasonixctl).
	here := presentAt(e)
	defer here(false)
	if srv, _ := serveOwnerSocket(ctx, e, state, "demo", log); srv != nil {
		defer srv.Close()
	}
	if _, err := e.Delegate(ctx, core.DelegateRequest{
		TaskID: "demo-1", Contract: json.RawMessage(demoContract), WaitMode: core.WaitBackground,
		Authority: core.Authority{Cwd: repo, Writable: true},
	}); err != nil {
		fmt.Fprintln(stderr, "reasonixctl demo:", err)
		return 1
	}
	if err := tui.Run(ctx, e, tui.Options{StateDir: state, WorkerVersion: "scripted demo worker " + acptest.Version, Dir: repo, Logger: log,
		Away: func(away bool) { here(!away) }, Intro: demoIntro(repo)}); err != nil {
		fmt.Fprintln(stderr, "reasonixctl demo:", err)
		return 1
	}
	fmt.Fprintf(stdout, "The demo repository is %s\n", repo)
	if d, err := e.Get(context.Background(), "demo-1"); err == nil && d.View.CommitHash != "" {
		fmt.Fprintf(stdout, "Commit %s is on branch %s; try: git -C %s show %s\n", d.View.CommitHash, d.View.Branch, repo, d.View.Branch)
	}
	return 0
}

// demoIntro is the demo's first note: what runs, and that the prompt about to open is the
// worker asking, not something gone wrong.
func demoIntro(repo string) *tui.Note {
	return &tui.Note{Title: "The reasonixctl demo", Lines: []string{
		"Task demo-1 runs a scripted worker (no model; nothing leaves this machine) in a throw-away repository, " + repo + ".",
		"First the worker asks to run `make check`, which its contract does not allow: the prompt that opens when you close this note is the worker asking you. a allows it once, d denies it.",
		"Then it writes three files and stops for your review: 2 shows the diff, v marks a file reviewed, F finalizes it into one commit.",
		"? lists every key; q quits.",
	}}
}

func makeDemoRepo(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	readme := "# demo\n\nA throw-away repository for the reasonixctl demo.\n"
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(readme), 0o644); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "greet"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "greet", "greet.go"), []byte(demoGreetBase), 0o644); err != nil {
		return err
	}
	env := append(os.Environ(), "GIT_AUTHOR_NAME=reasonixctl demo", "GIT_AUTHOR_EMAIL=demo@reasonixctl.invalid",
		"GIT_COMMITTER_NAME=reasonixctl demo", "GIT_COMMITTER_EMAIL=demo@reasonixctl.invalid")
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "README.md", "greet/greet.go"}, {"commit", "-q", "-m", "Start the demo"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	if os.Getenv("GIT_AUTHOR_NAME") == "" {
		os.Setenv("GIT_AUTHOR_NAME", "reasonixctl demo")
	}
	if os.Getenv("GIT_AUTHOR_EMAIL") == "" {
		os.Setenv("GIT_AUTHOR_EMAIL", "demo@reasonixctl.invalid")
	}
	return nil
}

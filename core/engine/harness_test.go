package engine

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"reasonixctl/acp"
	"reasonixctl/acp/acptest"
	"reasonixctl/core"
)

// inProcessWorker runs the scripted fake worker in this process over pipes.
func inProcessWorker(scn *acptest.Scenario) WorkerLauncher {
	return PipeWorker(func(ctx context.Context, r io.Reader, w io.Writer) error {
		return acptest.Serve(ctx, r, w, acptest.Options{Scenario: scn})
	})
}

type harness struct {
	t     *testing.T
	e     *Engine
	repo  string
	state string
}

func newHarness(t *testing.T, scn *acptest.Scenario, mutate ...func(*Config)) *harness {
	t.Helper()
	h := &harness{t: t, repo: newRepo(t), state: t.TempDir()}
	cfg := Config{StateDir: h.state, Mode: "test", Worker: inProcessWorker(scn), AllowUnsandboxed: false}
	for _, m := range mutate {
		m(&cfg)
	}
	e, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.e = e
	t.Cleanup(func() { e.Close() })
	return h
}

func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// newRepo makes a repository with one commit.
func newRepo(t testing.TB) string {
	t.Helper()
	t.Setenv("GIT_AUTHOR_NAME", "Test")
	t.Setenv("GIT_AUTHOR_EMAIL", "test@example.com")
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "add", "README")
	git(t, dir, "commit", "-q", "-m", "initial")
	real, _ := filepath.EvalSymlinks(dir)
	return real
}

const happyContract = `{
  "schema_version": 1,
  "objective": "Create result.txt",
  "user_outcome": "result.txt holds ok",
  "write_scope": ["result.txt"],
  "acceptance_criteria": [
    {"id": "result", "requirement": "result.txt contains ok", "evidence": "automated"},
    {"id": "looks-right", "requirement": "the change looks right", "evidence": "review"}
  ],
  "verification": [{"id": "check", "argv": ["test", "-f", "result.txt"], "proves": ["result"]}]
}`

func (h *harness) delegate(id string, mutate ...func(*core.DelegateRequest)) (core.DelegateResult, error) {
	req := core.DelegateRequest{
		TaskID: id, Contract: json.RawMessage(happyContract),
		Authority: core.Authority{Cwd: h.repo, Writable: true},
	}
	for _, m := range mutate {
		m(&req)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return h.e.Delegate(ctx, req)
}

func (h *harness) finalize(v core.TaskView, criteria ...string) (core.TaskView, error) {
	rev := v.ReviewRevision
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return h.e.Control(ctx, core.Finalize{
		TaskID: v.TaskID, ReviewSummary: "looks fine",
		ApprovedReviewCriteria: append([]string{}, criteria...), ExpectedReviewRevision: &rev, ExpectedReviewTreeHash: v.ReviewTreeHash,
	})
}

// sourceFingerprint captures everything of the caller's checkout that must never change.
func sourceFingerprint(t *testing.T, repo string) string {
	t.Helper()
	return git(t, repo, "status", "--porcelain=v1", "--untracked-files=all") + "|" +
		git(t, repo, "rev-parse", "HEAD") + "|" + git(t, repo, "ls-files", "-s")
}

func mustCode(t *testing.T, err error, code core.Code) *core.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("want %s, got success", code)
	}
	ce := core.AsError(err)
	if ce.Code != code {
		t.Fatalf("want %s, got %v", code, err)
	}
	return ce
}

func acpStatusWithMode(mode string) acp.Status {
	var st acp.Status
	st.Mode = mode
	return st
}

package remote

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

	"reasonixctl/acp/acptest"
	"reasonixctl/core"
	"reasonixctl/core/engine"
)

// shortDir is a fresh 0700 directory with a path short enough for a Unix socket inside it
// (t.TempDir's can exceed the 107 bytes sun_path holds).
func shortDir(t testing.TB) string {
	t.Helper()
	d, err := os.MkdirTemp("", "rx")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
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

func newRepo(t testing.TB) string {
	t.Helper()
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

func writeResult() acptest.Step {
	return acptest.Step{Write: &acptest.WriteFile{Path: "result.txt", Content: "ok\n"}, Permission: "ask"}
}

func turn(steps ...acptest.Step) *acptest.Scenario {
	return &acptest.Scenario{Turns: []acptest.Turn{{Steps: steps}}}
}

// owner is an engine with the scripted fake worker in process, serving its socket.
type owner struct {
	e    *engine.Engine
	srv  *Server
	dir  string
	repo string
}

func newOwner(t testing.TB, scn *acptest.Scenario, tweaks ...func(*Server)) *owner {
	t.Helper()
	o := &owner{dir: shortDir(t), repo: newRepo(t)}
	e, err := engine.Open(engine.Config{StateDir: o.dir, Mode: "mcp", Worker: engine.PipeWorker(func(ctx context.Context, r io.Reader, w io.Writer) error {
		return acptest.Serve(ctx, r, w, acptest.Options{Scenario: scn})
	})})
	if err != nil {
		t.Fatal(err)
	}
	o.e = e
	t.Cleanup(func() { e.Close() })
	o.srv, err = serve(context.Background(), e, o.dir, Info{Mode: "mcp", Version: "test", StartedAt: time.Now().UTC()}, nil, tweaks...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.srv.Close() })
	return o
}

func (o *owner) dial(t testing.TB, role string) *Client {
	t.Helper()
	c, err := Dial(ctxT(t, 10*time.Second), o.dir, role)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func (o *owner) request(id string) core.DelegateRequest {
	return core.DelegateRequest{TaskID: id, Contract: json.RawMessage(happyContract),
		Authority: core.Authority{Cwd: o.repo, Writable: true}}
}

func ctxT(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func mustCode(t *testing.T, err error, code core.Code) *core.Error {
	t.Helper()
	var ce *core.Error
	if err == nil {
		t.Fatalf("want %s, got success", code)
	}
	if !errorsAs(err, &ce) || ce.Code != code {
		t.Fatalf("want *core.Error %s, got %T %v", code, err, err)
	}
	return ce
}

// eventually waits for cond, polling, until the deadline.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

package mcp

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"reasonixctl/acp/acptest"
	"reasonixctl/core"
	"reasonixctl/core/engine"
)

// trojanSource is the CVE-2021-42574 example: the comment's RLO and isolates make the line
// render as a harmless comment while the bytes return early.
const trojanSource = "ok\nif access_level != \"user\u202e \u2066// Check if admin\u2069 \u2066\" {\n"

// A change that hides characters is a review risk over MCP: the review bundle and inspect name
// the file and line, finalize without acknowledging it fails with a typed error naming the
// risk, and finalize that lists it commits.
func TestTrojanSourceIsARiskToAcknowledge(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	repo := riskRepo(t)
	scn := &acptest.Scenario{Turns: []acptest.Turn{{Steps: []acptest.Step{
		{Write: &acptest.WriteFile{Path: "result.txt", Content: trojanSource}, Permission: "ask"},
	}}}}
	e, err := engine.Open(engine.Config{StateDir: t.TempDir(), Mode: "test",
		Worker: engine.PipeWorker(func(ctx context.Context, r io.Reader, w io.Writer) error {
			return acptest.Serve(ctx, r, w, acptest.Options{Scenario: scn})
		})})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	h := newHarnessWith(t, Options{}, &fakeService{}, func(context.Context) (core.Service, error) { return e, nil })

	args := delegateArgs("trojan-1")
	args["wait_timeout_seconds"] = 60
	got := structuredOf(t, h.call(ToolDelegate, args, writableMeta(repo)))
	if got["state"] != string(core.StateReviewRequired) {
		t.Fatalf("delegate: %v", got)
	}
	const id = core.SourceRiskPrefix + "result.txt"
	risks, _ := got["risks"].([]any)
	if len(risks) != 1 {
		t.Fatalf("risks = %v, want the one trojan_source risk", got["risks"])
	}
	risk, _ := risks[0].(string)
	for _, want := range []string{id + ": ", "line 2: bidi control U+202E, bidi control U+2066, bidi control U+2069"} {
		if !strings.Contains(risk, want) {
			t.Fatalf("risk %q does not say %q", risk, want)
		}
	}
	ins := structuredOf(t, h.call(ToolInspect, map[string]any{"task_id": "trojan-1", "include": []any{"risks"}}, nil))
	if sec, _ := ins["sections"].(map[string]any); sec == nil || !slices.Equal(toStrings(sec["risks"]), []string{risk}) {
		t.Fatalf("inspect risks = %v, want [%q]", ins["sections"], risk)
	}

	finalize := func(ack []any) map[string]any {
		a := map[string]any{
			"task_id": "trojan-1", "action": "finalize", "review_summary": "read line 2",
			"approved_review_criteria": []any{"a1"}, "expected_review_revision": got["review_revision"],
			"expected_review_tree_hash": got["review_tree_hash"], "wait_timeout_seconds": 60,
		}
		if ack != nil {
			a["acknowledged_risks"] = ack
		}
		res := h.callUnchecked(ToolControl, a, writableMeta(repo))
		if res.IsError {
			env := envelopeOf(t, res)
			return map[string]any{"error": env}
		}
		return structuredOf(t, res)
	}
	for _, ack := range [][]any{nil, {}, {"trojan_source:other.txt"}} {
		out := finalize(ack)
		env, ok := out["error"].(core.Error)
		if !ok {
			t.Fatalf("finalize acknowledging %v succeeded: %v", ack, out)
		}
		if env.Code != core.CodeInvalidRequest || env.Details["reason"] != "unacknowledged_risks" ||
			!slices.Equal(toStrings(env.Details["unacknowledged"]), []string{id}) || !strings.Contains(env.Message, id) {
			t.Fatalf("finalize acknowledging %v: %+v, want invalid_request naming %s", ack, env, id)
		}
	}
	out := finalize([]any{id})
	if out["state"] != string(core.StateCompleted) || out["commit_hash"] == nil {
		t.Fatalf("finalize with the risk acknowledged: %v", out)
	}
	body, err := exec.Command("git", "-C", repo, "show", out["commit_hash"].(string)+":result.txt").Output()
	if err != nil || string(body) != trojanSource {
		t.Fatalf("committed result.txt = %q (%v)", body, err)
	}
}

func toStrings(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// riskRepo is a repository with one commit for a real engine.
func riskRepo(t *testing.T) string {
	t.Helper()
	for _, kv := range [][2]string{{"GIT_AUTHOR_NAME", "Test"}, {"GIT_AUTHOR_EMAIL", "test@example.com"},
		{"GIT_COMMITTER_NAME", "Test"}, {"GIT_COMMITTER_EMAIL", "test@example.com"}} {
		t.Setenv(kv[0], kv[1])
	}
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "README"}, {"commit", "-q", "-m", "initial"}} {
		if args[0] == "add" {
			if err := os.WriteFile(filepath.Join(dir, "README"), []byte("hello\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

package mcp

import (
	"bufio"
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

// hiddenSamples is core/safetext's sample of each class of hidden character and look-alike,
// with the finding each must raise (expected.txt), and the benign samples that must raise none.
const hiddenSamples = "../core/safetext/testdata"

// A change that adds one sample of each class of hidden character and look-alike, and the
// benign samples beside them, is one risk per hidden sample over MCP, each naming its class:
// finalize without acknowledging them all is refused (unacknowledged_risks, naming those left),
// and finalize that lists them commits the files as written.
func TestHiddenSamplesAreRisksToAcknowledge(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	findings := map[string]string{}
	f, err := os.Open(filepath.Join(hiddenSamples, "expected.txt"))
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if name, finding, ok := strings.Cut(sc.Text(), "\t"); ok && !strings.HasPrefix(name, "#") {
			findings["samples/"+name] = finding
		}
	}
	f.Close()
	contents := map[string]string{}
	var steps []acptest.Step
	for _, sub := range []string{"hidden", "benign"} {
		entries, err := os.ReadDir(filepath.Join(hiddenSamples, sub))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			text, err := os.ReadFile(filepath.Join(hiddenSamples, sub, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			path := "samples/" + sub + "/" + e.Name()
			contents[path] = string(text)
			steps = append(steps, acptest.Step{Write: &acptest.WriteFile{Path: path, Content: string(text)}, Permission: "ask"})
		}
	}
	if len(findings) < 12 || len(contents) < len(findings)+3 {
		t.Fatalf("%d findings for %d samples", len(findings), len(contents))
	}

	repo := riskRepo(t)
	scn := &acptest.Scenario{Turns: []acptest.Turn{{Steps: steps}}}
	e, err := engine.Open(engine.Config{StateDir: t.TempDir(), Mode: "test",
		Worker: engine.PipeWorker(func(ctx context.Context, r io.Reader, w io.Writer) error {
			return acptest.Serve(ctx, r, w, acptest.Options{Scenario: scn})
		})})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	h := newHarnessWith(t, Options{}, &fakeService{}, func(context.Context) (core.Service, error) { return e, nil })

	contract := sampleContract()
	contract["objective"] = "Add the samples"
	contract["write_scope"] = []any{"samples/**"}
	got := structuredOf(t, h.call(ToolDelegate, map[string]any{"task_id": "samples-1", "contract": contract, "wait_timeout_seconds": 60}, writableMeta(repo)))
	if got["state"] != string(core.StateReviewRequired) {
		t.Fatalf("delegate: %v", got)
	}
	risks := toStrings(got["risks"])
	var ids []string
	for _, risk := range risks {
		id, _, _ := strings.Cut(risk, ": ")
		path, ok := strings.CutPrefix(id, core.SourceRiskPrefix)
		finding, expected := findings[path]
		if !ok || !expected || !strings.Contains(risk, finding) {
			t.Errorf("risk %q: no such sample, or it does not say %q", risk, finding)
		}
		ids = append(ids, id)
	}
	if len(risks) != len(findings) {
		t.Fatalf("%d risks for %d hidden samples: %q", len(risks), len(findings), risks)
	}
	ins := structuredOf(t, h.call(ToolInspect, map[string]any{"task_id": "samples-1", "include": []any{"risks"}}, nil))
	if sec, _ := ins["sections"].(map[string]any); sec == nil || !slices.Equal(toStrings(sec["risks"]), risks) {
		t.Fatalf("inspect risks = %v, want %q", ins["sections"], risks)
	}

	finalize := func(ack []string) (core.Error, map[string]any) {
		a := map[string]any{
			"task_id": "samples-1", "action": "finalize", "review_summary": "read every sample",
			"approved_review_criteria": []any{"a1"}, "expected_review_revision": got["review_revision"],
			"expected_review_tree_hash": got["review_tree_hash"], "wait_timeout_seconds": 60,
		}
		if ack != nil {
			list := make([]any, len(ack))
			for i, id := range ack {
				list[i] = id
			}
			a["acknowledged_risks"] = list
		}
		res := h.callUnchecked(ToolControl, a, writableMeta(repo))
		if res.IsError {
			return envelopeOf(t, res), nil
		}
		return core.Error{}, structuredOf(t, res)
	}
	slices.Sort(ids)
	for _, ack := range [][]string{nil, {}, ids[1:]} {
		env, out := finalize(ack)
		left := slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return slices.Contains(ack, id) })
		unack := toStrings(env.Details["unacknowledged"])
		slices.Sort(unack)
		if out != nil || env.Code != core.CodeInvalidRequest || env.Details["reason"] != "unacknowledged_risks" || !slices.Equal(unack, left) {
			t.Fatalf("finalize acknowledging %d of %d risks: %+v %v, want invalid_request naming %q", len(ack), len(ids), env, out, left)
		}
	}
	_, out := finalize(ids)
	if out["state"] != string(core.StateCompleted) || out["commit_hash"] == nil {
		t.Fatalf("finalize with the risks acknowledged: %v", out)
	}
	for path, want := range contents {
		body, err := exec.Command("git", "-C", repo, "show", out["commit_hash"].(string)+":"+path).Output()
		if err != nil || string(body) != want {
			t.Fatalf("committed %s = %q (%v), want %q", path, body, err, want)
		}
	}
}

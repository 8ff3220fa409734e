package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// Over MCP: a draft's placeholders are refused at delegate, naming the fields; a check that
// already fails on the base is reported as pre_existing_failure with the base's output, and the
// supervisor's excused_checks lets the task commit with a trailer naming it.
func TestMCPPreExistingFailureCanBeExcused(t *testing.T) {
	repo := testRepo(t)
	s := startMCP(t, t.TempDir())
	s.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "e2e", "version": "1"}})
	s.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})

	draft := map[string]any{}
	for k, v := range e2eContract {
		draft[k] = v
	}
	draft["objective"] = "TODO: say in one sentence what the worker should change"
	res := s.tool("reasonix_delegate", map[string]any{"task_id": "todo-1", "contract": draft}, codexMeta(repo, true))
	if code := res.errorCode(t); code != "invalid_contract" || !strings.Contains(res.Content[0].Text, `"placeholders":["objective"]`) {
		t.Fatalf("placeholder delegate: %s", res.Content[0].Text)
	}

	c := map[string]any{}
	for k, v := range e2eContract {
		c[k] = v
	}
	c["acceptance_criteria"] = append(append([]any{}, e2eContract["acceptance_criteria"].([]any)...),
		map[string]any{"id": "legacy", "requirement": "absent.txt exists", "evidence": "automated"})
	c["verification"] = append(append([]any{}, e2eContract["verification"].([]any)...),
		map[string]any{"id": "legacy-check", "argv": []string{"test", "-f", "absent.txt"}, "proves": []string{"legacy"}})
	res = s.tool("reasonix_delegate", map[string]any{"task_id": "pre-1", "contract": c}, codexMeta(repo, true))
	if res.IsError {
		t.Fatalf("delegate: %s", res.Content[0].Text)
	}
	var view struct {
		State                  string   `json:"state"`
		ReviewRevision         int      `json:"review_revision"`
		ReviewTreeHash         string   `json:"review_tree_hash"`
		RequiredReviewCriteria []string `json:"required_review_criteria"`
		CommitHash             string   `json:"commit_hash"`
	}
	json.Unmarshal(res.StructuredContent, &view)
	finalize := func(extra map[string]any) toolResult {
		args := map[string]any{"task_id": "pre-1", "action": "finalize", "review_summary": "ok",
			"approved_review_criteria": view.RequiredReviewCriteria, "expected_review_revision": view.ReviewRevision,
			"expected_review_tree_hash": view.ReviewTreeHash}
		for k, v := range extra {
			args[k] = v
		}
		return s.tool("reasonix_control", args, codexMeta(repo, true))
	}
	fin := finalize(nil)
	if code := fin.errorCode(t); code != "verification_failed" {
		t.Fatalf("finalize: %s", code)
	}
	var env struct {
		Error struct {
			Details struct {
				PreExisting bool `json:"pre_existing_failure"`
				Failures    []struct {
					ID          string `json:"id"`
					PreExisting bool   `json:"pre_existing"`
				} `json:"failures"`
				Baseline struct {
					Status  string `json:"status"`
					LogTail string `json:"log_tail"`
				} `json:"baseline"`
			} `json:"details"`
		} `json:"error"`
	}
	json.Unmarshal([]byte(fin.Content[0].Text), &env)
	// `test -f` has no reporter we read and prints nothing, here and on the base: its one failure
	// is its (empty) output, the same on both.
	if fs := env.Error.Details.Failures; len(fs) != 1 || fs[0].ID != "(no output)" || !fs[0].PreExisting {
		t.Fatalf("failures: %s", fin.Content[0].Text)
	}
	if !env.Error.Details.PreExisting || env.Error.Details.Baseline.Status != "failed" || !strings.Contains(env.Error.Details.Baseline.LogTail, "exit: 1") {
		t.Fatalf("details: %s", fin.Content[0].Text)
	}
	// The review did not move: the same approval, now with the excuse.
	fin = finalize(map[string]any{"excused_checks": []any{map[string]any{"id": "legacy-check", "reason": "absent.txt was never there"}}})
	if fin.IsError {
		t.Fatalf("excused finalize: %s", fin.Content[0].Text)
	}
	json.Unmarshal(fin.StructuredContent, &view)
	if view.State != "completed" || view.CommitHash == "" {
		t.Fatalf("view: %s", fin.StructuredContent)
	}
	if msg := gitIn(t, repo, "log", "-1", "--format=%B", view.CommitHash); !strings.Contains(msg, "Excused-check: legacy-check fails before this change too; absent.txt was never there") {
		t.Fatalf("commit message:\n%s", msg)
	}
}

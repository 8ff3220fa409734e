package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// task rebase through the owner's socket (an --mcp server owns the directory): a task in review
// whose result.txt conflicts with a commit made since is moved onto the new HEAD and a repair
// round starts; without an owner the command refuses, since the round's worker would end with it.
func TestTaskRebaseThroughTheOwner(t *testing.T) {
	state := privateDir(t)
	t.Setenv("CODEX_REASONIX_STATE_DIR", state)
	if code, _, errOut := runCmd(taskCmd, "rebase", "rb-1"); code != 1 || !strings.Contains(errOut, "no reasonixctl owns the state directory") {
		t.Fatalf("without an owner: %d %q", code, errOut)
	}

	repo := testRepo(t)
	s := startMCP(t, state)
	s.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "codex", "version": "0.169.0"}})
	s.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	res := s.tool("reasonix_delegate", map[string]any{"task_id": "rb-1", "contract": e2eContract}, codexMeta(repo, true))
	var view struct {
		State string `json:"state"`
	}
	if err := json.Unmarshal(res.StructuredContent, &view); err != nil || view.State != "review_required" {
		t.Fatalf("delegate: %s", res.StructuredContent)
	}
	if code, _, errOut := runCmd(taskCmd, "rebase", "rb-1"); code != 1 || !strings.Contains(errOut, "nothing to rebase") {
		t.Fatalf("on the HEAD already: %d %q", code, errOut)
	}
	if err := os.WriteFile(filepath.Join(repo, "result.txt"), []byte("theirs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, repo, "add", "result.txt")
	gitIn(t, repo, "commit", "-q", "-m", "theirs")
	code, out, errOut := runCmd(taskCmd, "rebase", "rb-1")
	if code != 0 || !strings.Contains(out, "Rebased task rb-1") || !strings.Contains(out, "repair round 1/2") {
		t.Fatalf("rebase: %d %q %q", code, out, errOut)
	}
}

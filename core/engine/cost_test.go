package engine

import (
	"strconv"
	"strings"
	"testing"

	"reasonixctl/acp/acptest"
	"reasonixctl/core"
)

// A task's life waits for the disk a fixed number of times, however often its worker reports
// its status: status and usage are committed unsynced, and the next synced step covers them.
func TestWorkerStatusAddsNoDiskFlushes(t *testing.T) {
	life := func(reports int) (syncs uint64, usage *core.Usage) {
		steps := []acptest.Step{{Write: &acptest.WriteFile{Path: "result.txt", Content: "ok\n"}}}
		for range reports {
			steps = append(steps, acptest.Step{Usage: &acptest.Usage{PromptTokens: 100, CompletionTokens: 10}})
		}
		h := newHarness(t, &acptest.Scenario{Name: "status", Turns: []acptest.Turn{{Steps: steps, Summary: "Wrote result.txt."}}})
		before := h.e.store.Syncs()
		res, err := h.delegate("t1")
		if err != nil {
			t.Fatal(err)
		}
		v, err := h.finalize(res.TaskView, "looks-right")
		if err != nil {
			t.Fatal(err)
		}
		if v.State != core.StateCompleted {
			t.Fatalf("state %s: %s", v.State, v.Reason)
		}
		syncs = h.e.store.Syncs() - before
		d, err := h.e.Get(t.Context(), "t1")
		if err != nil {
			t.Fatal(err)
		}
		return syncs, d.Usage
	}
	few, _ := life(1)
	many, usage := life(40)
	if many != few {
		t.Fatalf("40 status reports took %d flushes, 1 took %d: status waits for the disk", many, few)
	}
	// Created, worktree recorded, running, review ready, finalizing, committing, completed.
	if few > 7 {
		t.Fatalf("a task's life took %d flushes, want at most 7", few)
	}
	if usage == nil || usage.PromptTokens < 40*100 {
		t.Fatalf("usage of the unsynced reports not committed: %+v", usage)
	}
}

// A stored contract is parsed once for all its checkpoints; an unparseable one is refused each
// time, never remembered.
func TestStoredContractIsParsedOnce(t *testing.T) {
	a, err := parseStoredContract([]byte(happyContract))
	if err != nil {
		t.Fatal(err)
	}
	b, err := parseStoredContract([]byte(happyContract))
	if err != nil || a != b {
		t.Fatalf("parsed again: %p %p %v", a, b, err)
	}
	other := strings.Replace(happyContract, "Create result.txt", "Create result.txt again", 1)
	if c, err := parseStoredContract([]byte(other)); err != nil || c == a || c.Objective != "Create result.txt again" {
		t.Fatalf("another contract answered with the first: %+v %v", c, err)
	}
	for range 2 {
		if _, err := parseStoredContract([]byte(`{"schema_version": 1}`)); err == nil {
			t.Fatal("an invalid contract parsed")
		}
	}
	for i := range maxStoredContracts + 1 {
		if _, err := parseStoredContract([]byte(strings.Replace(happyContract, "Create", "Create "+strconv.Itoa(i), 1))); err != nil {
			t.Fatal(err)
		}
	}
	storedContracts.mu.Lock()
	n := len(storedContracts.byRaw)
	storedContracts.mu.Unlock()
	if n > maxStoredContracts {
		t.Fatalf("%d contracts remembered, at most %d", n, maxStoredContracts)
	}
}

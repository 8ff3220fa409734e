package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"reasonixctl/acp/acptest"
	"reasonixctl/core"
)

// Reasoning chunks are journaled as agent_thought, apart from the message text, and in the
// order the worker sent them: switching streams flushes the other one first.
func TestThoughtChunksAreJournaledApartFromMessages(t *testing.T) {
	h := newHarness(t, writeTurn(
		acptest.Step{Thought: "Weighing where the check belongs.", Chunks: 5},
		acptest.Step{Text: "I will write the file.", Chunks: 4},
		acptest.Step{Thought: "That should be enough.", Chunks: 3},
		writeResult(),
		acptest.Step{Text: "Done.", Chunks: 2},
	))
	if _, err := h.delegate("thoughts"); err != nil {
		t.Fatal(err)
	}
	want := []textRun{
		{core.EventAgentThought, "Weighing where the check belongs."},
		{core.EventAgentMessage, "I will write the file."},
		{core.EventAgentThought, "That should be enough."},
		{core.EventAgentMessage, "Done."},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sub, err := h.e.Subscribe(ctx, core.SubscribeOptions{TaskID: "thoughts", FromSeq: 1})
	if err != nil {
		t.Fatal(err)
	}
	// The timer may flush a stream in several events: runs of one type are one text.
	var runs []textRun
	done := func() bool {
		if len(runs) != len(want) {
			return false
		}
		for i := range want {
			if runs[i].typ != want[i].typ || runs[i].text != want[i].text {
				return false
			}
		}
		return true
	}
	for !done() {
		select {
		case ev, ok := <-sub.C:
			if !ok {
				t.Fatalf("journal ended with %+v, want %+v", runs, want)
			}
			if ev.Type != core.EventAgentMessage && ev.Type != core.EventAgentThought {
				continue
			}
			var d core.TextData
			if err := json.Unmarshal(ev.Data, &d); err != nil {
				t.Fatal(err)
			}
			if n := len(runs); n > 0 && runs[n-1].typ == ev.Type {
				runs[n-1].text += d.Text
			} else {
				runs = append(runs, textRun{ev.Type, d.Text})
			}
			if !prefixOf(runs, want) {
				t.Fatalf("journal text %+v, want %+v", runs, want)
			}
		case <-ctx.Done():
			t.Fatalf("journal text %+v, want %+v", runs, want)
		}
	}
}

type textRun struct{ typ, text string }

// prefixOf says whether got can still grow into want.
func prefixOf(got, want []textRun) bool {
	if len(got) > len(want) {
		return false
	}
	for i, r := range got {
		if r.typ != want[i].typ || (i < len(got)-1 && r.text != want[i].text) || !strings.HasPrefix(want[i].text, r.text) {
			return false
		}
	}
	return true
}

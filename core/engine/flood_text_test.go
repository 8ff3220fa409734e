package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"reasonixctl/acp/acptest"
	"reasonixctl/core"
)

// Every chunk of a flood of agent text reaches the journal, in order.
func TestFloodedTextIsJournaledWhole(t *testing.T) {
	const n = 50000 // text was lost from the first 1,000 on
	h := newHarness(t, writeTurn(acptest.Step{Flood: n}, writeResult()))
	bg := 0
	if _, err := h.delegate("flood", func(r *core.DelegateRequest) { r.WaitTimeoutSeconds = &bg }); err != nil {
		t.Fatal(err)
	}
	r, timedOut, err := h.e.waitFor(context.Background(), "flood", 120*time.Second, func(r *taskRecord) bool { return r.State != core.StateRunning && r.State != core.StateProvisioning })
	if err != nil || timedOut {
		t.Fatalf("%v %v", err, timedOut)
	}
	var b strings.Builder
	for _, ev := range journal(t, h, "flood") {
		if ev.Type == core.EventAgentMessage {
			var d core.TextData
			json.Unmarshal(ev.Data, &d)
			b.WriteString(d.Text)
		}
	}
	text := b.String()
	at := 0
	for i := 0; i < n; i++ {
		line := fmt.Sprintf("flood %d\n", i)
		j := strings.Index(text[at:], line)
		if j != 0 {
			t.Fatalf("state %s: chunk %d missing or out of place (next text: %.60q)", r.State, i, text[at:])
		}
		at += len(line)
	}
}

// splitText keeps every byte, in order, within the bound, on character boundaries, and prefers
// line and word ends.
func TestSplitText(t *testing.T) {
	cases := []string{
		"",
		strings.Repeat("word ", 3000),
		strings.Repeat("line of text\n", 1000),
		strings.Repeat("é", 5000) + strings.Repeat("x", 9000),
		"sk-" + strings.Repeat("A", 20000),
	}
	for _, s := range cases {
		pieces := splitText(s, 1000)
		if strings.Join(pieces, "") != s {
			t.Fatalf("pieces of %.20q do not join back", s)
		}
		for i, p := range pieces {
			if len(p) > 1000 || !utf8.ValidString(p) {
				t.Fatalf("piece %d of %.20q: %d bytes, valid %v", i, s, len(p), utf8.ValidString(p))
			}
			if i < len(pieces)-1 && strings.Contains(s, "\n") && !strings.HasSuffix(p, "\n") {
				t.Fatalf("piece %d of the lines does not end a line: %.20q", i, p[len(p)-20:])
			}
		}
	}
}

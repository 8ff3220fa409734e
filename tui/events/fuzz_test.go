package events

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"reasonixctl/core"
	"reasonixctl/core/safetext"
	"reasonixctl/tui/term"
)

var fuzzTypes = []string{
	core.EventAgentMessage, core.EventAgentThought, core.EventToolCall, core.EventPermissionDecided,
	core.EventUsage, core.EventStateChanged, core.EventSteered, core.EventPlan, core.EventReviewReady,
	core.EventVerification, core.EventCommitted, core.EventWorkerStatus, core.EventInteractionWaiting,
	core.EventInteractionResolved, core.EventTaskCreated, core.EventError, core.EventWorkerUnknown,
}

var fuzzKeys = []tea.KeyMsg{
	keyMsg("pgup"), keyMsg("pgdown"), keyMsg("g"), keyMsg("G"), keyMsg("["), keyMsg("]"), keyMsg("enter"),
	keyMsg("/"), keyMsg("e"), keyMsg("n"), keyMsg("N"), keyMsg("f"), keyMsg("esc"), keyMsg("backspace"),
}

// fuzzEvent builds one event from a record of the script: a type (known or the payload's own),
// and data that is either the payload verbatim or a well-formed value of the type built from it.
func fuzzEvent(seq uint64, typ byte, payload []byte) core.Event {
	s := string(payload)
	ev := core.Event{TaskID: "t", Seq: seq, Data: json.RawMessage(payload)}
	if int(typ&0x1f) >= len(fuzzTypes) {
		ev.Type = s
		return ev
	}
	ev.Type = fuzzTypes[int(typ&0x1f)]
	if typ&0x80 == 0 {
		return ev
	}
	status := []string{"pending", "in_progress", "completed", "failed", "", s}[int(typ>>5&3)+len(s)%3]
	var v any
	switch ev.Type {
	case core.EventToolCall:
		id := ""
		if len(s) > 0 {
			id = s[:1]
		}
		v = core.ToolCallData{ToolCallID: id, Title: s, Kind: "execute", Status: status, Input: map[string]any{"command": s}, Output: s}
	case core.EventPermissionDecided:
		v = core.PermissionData{Kind: s, Argv: strings.Fields(s), Paths: []string{s}, Decision: status, Code: s, Reason: s, Hint: s, By: s}
	case core.EventUsage:
		v = core.Usage{PromptTokens: int64(len(s)), CompletionTokens: int64(typ)}
	case core.EventPlan:
		v = core.PlanData{Entries: []core.PlanEntry{{Content: s, Status: status}, {Content: s}}}
	case core.EventStateChanged:
		v = core.StateChangedData{From: core.State(s), To: core.State(status), Phase: s, Reason: s}
	default:
		v = core.TextData{Text: s}
	}
	ev.Data = mustJSON(v)
	return ev
}

// FuzzEventsPane feeds arbitrary event streams, keys and sizes to the pane: it never panics,
// draws exactly its height, no line wider than its width, and its line accounting stays exact
// and bounded.
func FuzzEventsPane(f *testing.F) {
	rec := func(typ, op byte, payload string) []byte {
		return append([]byte{typ, op, byte(len(payload))}, payload...)
	}
	join := func(rs ...[]byte) []byte {
		var out []byte
		for _, r := range rs {
			out = append(out, r...)
		}
		return out
	}
	f.Add(join(rec(0x80, 0, "Let me th"), rec(0x80, 0, "ink about"), rec(0x80, 0, " this.\n"), rec(0x80, 0, "\nNext.")), uint16(40), uint8(10))
	f.Add(join(rec(0x81, 0, "reasoning here"), rec(0x80, 0, "answer"), rec(0x82, 5, "c1 go test"), rec(0xa2, 6, "c1"), rec(0x83, 7, "deny")), uint16(30), uint8(6))
	f.Add(join(rec(0x1f, 1, "mystery"), rec(0x04, 2, `{"prompt_tokens":1}`), rec(0x8a, 3, "\x1b[2J\t世界🙂e\u0301")), uint16(3), uint8(2))
	f.Add(join(rec(0x82, 0, "a"), rec(0x82, 1, "a"), rec(0x82, 6, "b"), rec(0x80, 7, strings.Repeat("word ", 40))), uint16(1), uint8(1))
	f.Fuzz(func(t *testing.T, script []byte, width uint16, height uint8) {
		w, h := 1+int(width)%300, 1+int(height)%60
		p := newTestPane(w, h)
		var seq uint64
		for len(script) >= 3 {
			typ, op, n := script[0], script[1], int(script[2])
			script = script[3:]
			n = min(n, len(script))
			payload := script[:n]
			script = script[n:]
			seq++
			if op&0x40 != 0 {
				seq-- // a duplicate or out-of-order delivery
			}
			p.add(fuzzEvent(seq, typ, payload))
			if k := int(op & 0x0f); k > 0 && k <= len(fuzzKeys) {
				p.Update(fuzzKeys[k-1])
			}
			if op&0x80 != 0 {
				w = 1 + (w*7+int(op))%300
				p.setSize(w, h)
			}
			checkPane(t, p)
		}
	})
}

func checkPane(t *testing.T, p *Pane) {
	t.Helper()
	v := p.view()
	lines := strings.Split(v, "\n")
	if len(lines) != p.h {
		t.Fatalf("view has %d lines, want %d:\n%s", len(lines), p.h, v)
	}
	for _, l := range lines {
		if lw := ansi.StringWidth(l); lw > p.w {
			t.Fatalf("line %q is %d wide, pane is %d", l, lw, p.w)
		}
	}
	cost := 0
	for _, e := range p.entries[p.head:] {
		lines, nonEmpty := 0, 0
		for _, q := range e.paras {
			lines += len(q.lines)
			if len(q.lines) > 0 {
				nonEmpty++
			}
		}
		if lines != e.lines || nonEmpty != e.nonEmpty {
			t.Fatalf("entry %d counts %d lines in %d paragraphs, has %d in %d", e.id, e.lines, e.nonEmpty, lines, nonEmpty)
		}
		cost += e.cost
	}
	if cost != p.cost || p.cost > MaxLines || len(p.entries)-p.head > MaxLines {
		t.Fatalf("pane cost %d, entries sum to %d, bound %d", p.cost, cost, MaxLines)
	}
}

// FuzzStreamedTextWrapsAsWhole checks the incremental wrap: text appended in any chunks wraps
// exactly as the same text wrapped at once, and no line is wider than its limit.
func FuzzStreamedTextWrapsAsWhole(f *testing.F) {
	f.Add("Let me think about this. The handler returns early.", []byte{1, 2, 3}, uint8(20), uint8(18))
	f.Add("  indented\n    code line\nback  to   prose with  spaces", []byte{5, 1}, uint8(9), uint8(7))
	f.Add("averyveryverylongwordthatneverends and then some", []byte{3}, uint8(6), uint8(4))
	f.Fuzz(func(t *testing.T, text string, cuts []byte, first, rest uint8) {
		text = safetext.Sanitize(text)
		fw, rw := 1+int(first)%120, 1+int(rest)%120
		var streamed para
		s := text
		for i := 0; len(s) > 0; i++ {
			n := 1
			if len(cuts) > 0 {
				n = 1 + int(cuts[i%len(cuts)])%16
			}
			n = min(n, len(s))
			// Events carry whole runes: JSON text is valid UTF-8.
			for n < len(s) && !utf8.RuneStart(s[n]) {
				n++
			}
			streamed.appendText(s[:n], fw, rw)
			s = s[n:]
		}
		var whole para
		whole.appendText(text, fw, rw)
		if len(streamed.lines) != len(whole.lines) {
			t.Fatalf("streamed %q\nwhole    %q", texts(streamed.lines), texts(whole.lines))
		}
		for i := range whole.lines {
			if streamed.lines[i] != whole.lines[i] {
				t.Fatalf("line %d: streamed %+v whole %+v", i, streamed.lines[i], whole.lines[i])
			}
			limit := rw
			if i == 0 {
				limit = fw
			}
			if lw := term.TextWidth(whole.lines[i].text); lw > limit && term.TextWidth(strings.TrimLeft(whole.lines[i].text, " ")) > 0 {
				// A single rune wider than the limit is the one overflow allowed.
				if r := []rune(strings.TrimSpace(whole.lines[i].text)); len(r) > 1 {
					t.Fatalf("line %d %q is %d wide, limit %d", i, whole.lines[i].text, lw, limit)
				}
			}
		}
	})
}

func texts(ls []wline) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.text
	}
	return out
}

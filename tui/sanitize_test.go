package tui

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"reasonixctl/core"
	"reasonixctl/core/safetext"
	"reasonixctl/tui/term"
)

// hostilePieces are what an attacker plants: every C0 control, DEL, every C1 control (as
// UTF-8 and as raw bytes), an escape sequence of each family, bidi, zero-width and other
// hidden characters, pieces of emoji sequences, and invalid UTF-8.
func hostilePieces() []string {
	var out []string
	for c := range 0x20 {
		out = append(out, string(rune(c)))
	}
	out = append(out, "\x7f")
	for c := 0x80; c < 0xa0; c++ {
		out = append(out, string(rune(c)), string([]byte{byte(c)}))
	}
	out = append(out,
		"\x1b[2J\x1b[H", "\x1b[31mred\x1b[0m", "\x1b[1;1H ALLOWED ", "\x1b[?1049h", "\x1b[6n", "\x1b[>c", "\x1b[ q",
		"\x1b]52;c;cGxhbnRlZA==\x07", "\x1b]0;pwned\x1b\\", "\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\",
		"\x1b]9;fake notice\x07", "\x1bP+q544e\x1b\\", "\x1b_apc\x1b\\", "\x1b^pm\x1b\\", "\x1bXsos\x1b\\",
		"\x1bN", "\x1bO", "\x1b7", "\x1b8", "\x1bc", "\x1b(0", "\x1b#8", "\x1b", "\x1b[",
		"\u009b2J", "\u009d0;t\u009c", "\u0090q\u009c", "\x9b2J", "\x9d0;t\x9c",
		"\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069",
		"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u200e", "\u200f", "\u061c", "\u2028", "\u2029", "\U000e0041",
		"\u3164", "\u00ad", "\ufe0f", "\ufe01", "\U000e0067\U000e007f",
		"\xff", "\xfe\xfe", "\xc0\x80", "\xed\xa0\x80", "\xe2\x80", "\x80",
		"\r", "\b\b\b", "\t", "\n",
	)
	return out
}

// payloads are the adversarial strings (all pieces at once, and a tenth of them at a time
// between words, so a piece is not hidden behind an earlier one cut off) and random mixes of
// pieces, printable text and bytes.
func payloads() []string {
	pieces := hostilePieces()
	out := []string{"x" + strings.Join(pieces, "y") + "z"}
	for i := range 10 {
		var b strings.Builder
		for j := i; j < len(pieces); j += 10 {
			b.WriteString("a" + pieces[j])
		}
		out = append(out, b.String()+"b")
	}
	rng := rand.New(rand.NewPCG(24, 42))
	// The ZWJ sequence stands between spaces: a word wider than its pane is broken between
	// characters, which would part its pictographs and leave a joiner the frame guard marks.
	words := []string{"go", "test", "ok", " ", "ünïcödé", "日本", "🙂", "a/b.go", "--flag", "❤️", " 👨‍👩‍👧 ", "#️⃣",
		"🏴\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F"}
	for range 10 {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			if rng.IntN(2) == 0 {
				b.WriteString(pieces[rng.IntN(len(pieces))])
			} else {
				b.WriteString(words[rng.IntN(len(words))])
			}
		}
		// Random bytes too: whatever a worker's output holds.
		for range rng.IntN(4) {
			b.WriteByte(byte(rng.IntN(256)))
		}
		out = append(out, b.String())
	}
	return out
}

// plant sets every string the dashboard could draw in v (a pointer) to p: struct fields,
// slice elements and map values, recursively. keep names fields whose value selects
// behaviour (a state, an interaction's kind) and stays as it is.
func plant(v reflect.Value, p string, keep map[string]bool) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			plant(v.Elem(), p, keep)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() || keep[v.Type().Name()+"."+f.Name] {
				continue
			}
			plant(v.Field(i), p, keep)
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return // raw JSON: set by hand
		}
		for i := range v.Len() {
			plant(v.Index(i), p, keep)
		}
	case reflect.String:
		if v.CanSet() {
			v.SetString(p)
		}
	}
}

var keepFields = map[string]bool{
	"TaskView.State": true, "TaskView.ReviewTreeHash": true, "Interaction.Kind": true, "Interaction.Status": true,
	"Criterion.Evidence": true, "ReviewComment.Status": true, "ReviewComment.Side": true,
}

func planted[T any](v T, p string) T {
	plant(reflect.ValueOf(&v), p, keepFields)
	return v
}

// hostileWorld is the scenario with p in every string the worker or the repository supplies:
// task records, details, the journal (every kind of event), interactions, verification
// results and logs, and the review diff's file names and lines.
func hostileWorld(p string) (*logService, core.Interaction, core.Interaction) {
	f := scenario()
	id := "login-fix"
	one := 1
	tv := planted(f.tasks[0], p)
	tv.TaskID = id
	f.tasks[0] = tv
	d := planted(f.details[id], p)
	d.View = tv
	d.Contract = mustJSON(map[string]any{"objective": p, "write_scope": []string{p}, "forbidden_scope": []string{p}})
	d.Criteria = append(d.Criteria, core.Criterion{ID: "r" + p, Requirement: p, Evidence: "review"})
	d.Verification = append(d.Verification, planted(core.VerificationResult{ExitCode: &one}, p))
	d.Verification[0].ID = "unit"
	d.Comments = []core.ReviewComment{planted(core.ReviewComment{Status: core.CommentOpen, Side: core.SideNew, Line: 2}, p)}
	d.Comments[0].Path = "evil.go"
	line := strings.ReplaceAll(p, "\n", "")
	name := "n" + strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '"' || r == '\\' || r == '\n' || r == '\r' {
			return '_'
		}
		return r
	}, line)
	d.Diff = sampleDiff + "diff --git a/evil.go b/evil.go\n--- a/evil.go\n+++ b/evil.go\n@@ -1,2 +1,3 @@ " + line + "\n x" + line +
		"\n-y" + line + "\n+z" + line + "\n+w" + line + "\n" +
		"diff --git a/" + name + " b/" + name + "\nnew file mode 100644\n--- /dev/null\n+++ b/" + name + "\n@@ -0,0 +1 @@\n+" + line + "\n"
	d.SourceRisks = []core.SourceRisk{{ID: "trojan_source:evil.go", Path: "evil.go", Lines: []int{2}, Text: p}}
	d.Risks = []string{p}
	f.details[id] = d

	perm := planted(permissionIA("ia-1"), p)
	perm.ID = "ia-1"
	question := planted(questionIA("q-1"), p)
	question.ID = "q-1"
	var evs []core.Event
	add := func(typ string, data any) {
		evs = append(evs, core.Event{TaskID: id, Seq: uint64(len(evs) + 1), Time: epoch, Type: typ, Data: mustJSON(data)})
	}
	cost := 1.0
	add(core.EventTaskCreated, planted(core.TaskCreatedData{State: core.StateProvisioning}, p))
	add(core.EventStateChanged, planted(core.StateChangedData{From: core.StateProvisioning, To: core.StateRunning}, p))
	add(core.EventAgentMessage, core.TextData{Text: p})
	add(core.EventAgentThought, core.TextData{Text: p})
	add(core.EventToolCall, core.ToolCallData{ToolCallID: "c1", Title: p, Kind: p, Status: "in_progress",
		Input: string(mustJSON(map[string]any{"command": p, "path": p})), Output: p})
	add(core.EventToolCall, core.ToolCallData{ToolCallID: "c2", Title: p, Kind: "execute", Status: "failed", Input: p, Output: p})
	add(core.EventPlan, core.PlanData{Entries: []core.PlanEntry{{Content: p, Status: "completed"}, {Content: p, Status: p}}})
	add(core.EventPermissionDecided, planted(core.PermissionData{Decision: core.DecisionDeny, Argv: []string{p, p}, Paths: []string{p}}, p))
	add(core.EventPermissionDecided, planted(core.PermissionData{Argv: []string{p}}, p))
	add(core.EventInteractionWaiting, perm)
	resolved := planted(questionIA("q-0"), p)
	resolved.Status = core.InteractionResolved
	resolved.Response = &core.InteractionResponse{Decision: p, OptionID: p, Answer: p}
	add(core.EventInteractionResolved, resolved)
	add(core.EventUsage, core.Usage{PromptTokens: 5, EstimatedCost: &cost, Currency: &p, UsageSource: p})
	add(core.EventReviewReady, planted(core.ReviewReadyData{ChangedFiles: []string{p}}, p))
	add(core.EventSteered, core.TextData{Text: p})
	add(core.EventVerification, planted(core.VerificationResult{ExitCode: &one, Argv: []string{p}}, p))
	add(core.EventCommitted, planted(core.CommittedData{}, p))
	add(core.EventWorkerStatus, planted(core.WorkerStatusData{}, p))
	add(core.EventWorkerUnknown, map[string]any{p: p})
	add(core.EventError, core.TextData{Text: p})
	add(core.EventReviewComment, d.Comments[0])
	add(core.EventReviewCommentsSent, map[string]any{"ids": []string{p}, "message": p})
	add(core.EventReviewSummary, map[string]any{"summary": p})
	add(p, map[string]any{"text": p}) // an event type this dashboard does not know
	add(core.EventStateChanged, core.StateChangedData{From: core.StateRunning, To: core.StateReviewRequired, Phase: p, Reason: p})
	f.journals[id] = evs
	f.onControl = func(core.Command) (core.TaskView, error) {
		return core.TaskView{}, core.Errorf(core.CodeInvalidRequest, &core.GitRefusal{Reason: p}, "%s", p)
	}
	return &logService{fakeService: f, logs: map[string]string{id + "/unit": p + "\n" + p}}, perm, question
}

// checkFrame fails unless frame, parsed as a terminal would, holds only SGR sequences besides
// newlines and visible text: no other escape sequence, no control character, nothing invisible
// or invalid.
func checkFrame(t *testing.T, where, frame string) {
	t.Helper()
	p := ansi.NewParser()
	var state byte
	text, skipped := term.WithoutSGR(frame), 0
	for rest := frame; len(rest) > 0; {
		seq, width, n, newState := ansi.DecodeSequence(rest, state, p)
		state = newState
		bad := ""
		switch {
		case seq == "\n":
		case width > 0 || (seq[0] >= 0x20 && seq[0] != 0x7f && !ansi.HasEscPrefix(seq) && seq[0] < utf8.RuneSelf):
			// printable ASCII
		case seq[0] == 0x1b:
			c := ansi.Cmd(p.Command())
			if !ansi.HasCsiPrefix(seq) || c.Final() != 'm' || c.Prefix() != 0 || c.Intermediate() != 0 {
				bad = "escape sequence"
			}
			skipped += len(seq)
		case seq[0] < 0x20 || seq[0] == 0x7f:
			bad = "control character"
		}
		if bad == "" && seq[0] != 0x1b {
			if !utf8.ValidString(seq) {
				bad = "invalid UTF-8"
			}
			at := len(frame) - len(rest) - skipped
			for j, r := range seq {
				// Marked where it stands in the frame's text, as the guard judges it: a
				// keycap's # is a sequence of its own, perhaps in a style of its own.
				if (r >= 0x80 && r < 0xa0) || safetext.MarkedAt(text, at+j) || (r < 0x20 && r != '\n') || r == 0x7f {
					bad = fmt.Sprintf("hidden character U+%04X", r)
				}
			}
		}
		if bad != "" {
			at := len(frame) - len(rest)
			start := strings.LastIndexByte(frame[:at], '\n') + 1
			end := strings.IndexByte(frame[at:], '\n')
			if end < 0 {
				end = len(frame) - at
			}
			t.Fatalf("%s: %s %q reaches the terminal in line %d of the frame:\n%s", where, bad, seq,
				strings.Count(frame[:at], "\n")+1, ansi.Strip(frame[start:at+end]))
		}
		rest = rest[n:]
	}
}

// TestNothingForeignReachesTheTerminal plants adversarial and random strings in every field the
// dashboard draws and walks every view: the task list and header, the summary, events of each
// kind folded and expanded, the diff unified and side by side, the contract, the checks and
// their log, the replay, the permission prompt, the question, the finalize form, an error
// notice and the desktop notification. Each frame must hold only SGR sequences and visible
// text, and must already be so before the frame guard (sanitize covered every field).
func TestNothingForeignReachesTheTerminal(t *testing.T) {
	lipgloss.SetColorProfile(termenv.ANSI256)
	t.Cleanup(func() { lipgloss.SetColorProfile(termenv.Ascii) })
	for i, p := range payloads() {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			svc, perm, question := hostileWorld(p)
			clk := &clock{t: epoch}
			m := newModel(context.Background(), svc, Options{StateDir: "/state" + p, WorkerVersion: p, Now: clk.Now, Dir: "/src/app"})
			h := &harness{t: t, m: m, svc: svc.fakeService, clk: clk}
			h.send(tea.WindowSizeMsg{Width: 170, Height: 50})
			h.run(m.Init())
			frames := 0
			look := func(where string) {
				t.Helper()
				frame := m.frame()
				checkFrame(t, where+" (as laid out)", frame)
				open, close := term.StyleCodes(m.theme.Warn.Render)
				out := m.View()
				checkFrame(t, where, out)
				if ansi.Strip(out) != ansi.Strip(term.GuardFrame(frame, "", "")) || ansi.Strip(frame) != ansi.Strip(term.GuardFrame(frame, open, close)) {
					t.Fatalf("%s: the frame guard had to change the text: a field bypassed sanitize", where)
				}
				frames++
			}
			look("events")
			for range 12 {
				h.press("[", "enter")
				look("events, an item expanded")
			}
			h.press("f", "f", "f")
			look("events filtered")
			h.press("esc", "2")
			look("diff")
			for range 4 {
				h.press("}")
				look("diff, next file")
				h.press("J", "J")
				look("diff, a line selected")
			}
			h.press("w")
			look("diff side by side")
			h.press("w", "3")
			look("contract")
			h.press("4")
			look("checks")
			h.press("]")
			look("checks, next")
			h.press("p")
			for range len(svc.journals["login-fix"]) {
				look("replay")
				h.press("right")
			}
			h.press("esc", "1")
			h.send(eventsMsg{core.Event{TaskID: "login-fix", Seq: 100, Time: epoch, Type: core.EventInteractionWaiting, Data: mustJSON(perm)}})
			h.press("i")
			clk.advance(time.Second)
			look("permission prompt")
			h.press("d")
			look("after the denial's error")
			h.press("esc")
			h.send(eventsMsg{core.Event{TaskID: "login-fix", Seq: 101, Time: epoch, Type: core.EventInteractionWaiting, Data: mustJSON(question)}})
			h.press("i")
			clk.advance(time.Second)
			look("question")
			h.press("esc", "esc", "F")
			look("finalize form")
			h.press("enter")
			look("finalize form refusing")
			h.press("esc", "s")
			look("steer")
			h.press("esc", "?")
			look("help")
			h.press("esc")
			h.send(tea.WindowSizeMsg{Width: 100, Height: 30})
			look("narrow")
			checkNotification(t, notification(p, attnWaiting, &perm))
			checkNotification(t, notification("t", attnWaiting, &question))
			checkNotification(t, notification(p, attnReady, nil))
			if frames < 40 {
				t.Fatalf("only %d frames looked at", frames)
			}
		})
	}
}

// checkNotification: the notification is the bell and one OSC 9 whose text is visible.
func checkNotification(t *testing.T, s string) {
	t.Helper()
	body, ok := strings.CutPrefix(s, "\a\x1b]9;")
	if !ok || !strings.HasSuffix(body, "\x07") {
		t.Fatalf("notification %q is not a bell and one OSC 9", s)
	}
	checkFrame(t, "notification", strings.TrimSuffix(body, "\x07"))
	if strings.Contains(body, "\n") {
		t.Fatalf("notification %q spans lines", s)
	}
}

// FuzzSanitizedTextIsInert: whatever the bytes, what safetext.Sanitize returns, parsed as a
// terminal parses it, is visible text and newlines only (core/safetext's own tests pin the
// rest of Sanitize).
func FuzzSanitizedTextIsInert(f *testing.F) {
	for _, p := range hostilePieces() {
		f.Add(p)
	}
	f.Add("x" + strings.Join(hostilePieces(), "y"))
	f.Fuzz(func(t *testing.T, s string) {
		checkFrame(t, "sanitize", safetext.Sanitize(s))
	})
}

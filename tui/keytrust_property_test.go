package tui

import (
	"flag"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
)

// The key-trust property: whatever the person types, pastes or resizes, in whatever view or
// dialog, while the worker's requests arrive at any moment, the dashboard sends an answer only
// when one key, alone in its read, was pressed on that request's own dialog past its key grace,
// and that key is an answer key of the request's kind. The test drives the real dashboard with
// seeded random streams and checks the fake service's control log after every read; it only
// looks at what the person sees (the screen), the control log and capturing().
//
// go test ./tui -run TestKeyTrustProperty -keytrust.seed=N replays one stream (its first
// sequence uses seed N); KEYTRUST_SEED does the same, KEYTRUST_SEQS sets how many sequences.

var keyTrustSeed = flag.Int64("keytrust.seed", 0, "first seed of TestKeyTrustProperty (0: the fixed default, or KEYTRUST_SEED)")

const keyTrustDefaultSeed = 20261202

func TestKeyTrustProperty(t *testing.T) {
	seed := int64(keyTrustDefaultSeed)
	if s, err := strconv.ParseInt(os.Getenv("KEYTRUST_SEED"), 10, 64); err == nil {
		seed = s
	}
	if *keyTrustSeed != 0 {
		seed = *keyTrustSeed
	}
	// Under -race a sequence takes about 65 ms of CPU: 800 of them (some 20,000 reads) stay under
	// a minute on an idle two-core machine.
	seqs := 800
	if testing.Short() {
		seqs = 100
	}
	if n, err := strconv.Atoi(os.Getenv("KEYTRUST_SEQS")); err == nil && n > 0 {
		seqs = n
	}
	t.Logf("seed %d, %d sequences of 10 to 40 operations", seed, seqs)
	stats := &ktStats{}
	for i := 0; i < seqs; i++ {
		s := seed + int64(i)
		rng := rand.New(rand.NewSource(s))
		kt := newKeyTrust(t, s, stats)
		for j, steps := 0, 10+rng.Intn(31); j < steps || len(kt.queue) > 0; j++ {
			kt.do(kt.randomOp(rng))
		}
		if t.Failed() {
			return
		}
	}
	t.Logf("%d screens drawn, %d reads, %d answers sent (%d checked as due), %d keys typed into a search, %d prompts kept from opening",
		stats.looks, stats.reads, stats.answers, stats.due, stats.searchRunes, stats.held)
	if seqs >= 50 && (stats.answers == 0 || stats.searchRunes == 0) {
		t.Fatal("the streams never answered or never searched: the generator lost its reach")
	}
}

// FuzzKeyTrust decodes bytes into the same operations and checks the same property.
func FuzzKeyTrust(f *testing.F) {
	// Pairs of opcode and argument (decodeOp): 7 a request, 6 time, 0 and 1 a key, 2 runes,
	// 3 two keys in one read, 9 a mode's keys in one read.
	f.Add([]byte{7, 0, 6, 20, 0, 0, 6, 30, 0, 0})          // a permission; a in its grace, a after it
	f.Add([]byte{9, 0, 7, 1, 2, 3, 0, 13, 6, 200, 0, 0})   // a search; a permission; runes; 2 s; a
	f.Add([]byte{7, 2, 0, 24, 6, 60, 0, 24, 6, 30, 0, 52}) // a question: 2, 2, enter
	f.Add([]byte{7, 0, 6, 200, 3, 1, 0, 0, 5, 3, 0, 8})    // several keys in one read, a resize
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 600 {
			data = data[:600]
		}
		kt := newKeyTrust(t, -1, &ktStats{})
		for i := 0; i+1 < len(data) && !t.Failed(); i += 2 {
			kt.do(kt.decodeOp(data[i], data[i+1], data[i+2:]))
		}
	})
}

type ktStats struct{ reads, looks, answers, due, searchRunes, held int }

// ktOp is one thing that happens: a read of the terminal (msgs delivered by one h.send), a
// request arriving or resolved elsewhere, a resize, or time passing.
type ktOp struct {
	desc    string
	msgs    []tea.Msg
	advance time.Duration
	arrival *ktIA // msgs deliver this request
}

type ktIA struct {
	task string
	ia   core.Interaction
}

type keyTrust struct {
	t     *testing.T
	h     *harness
	seed  int64
	stats *ktStats
	done  []string // the operations so far, to reproduce a failure

	seq        map[string]uint64
	nextIA     int
	pending    map[string]*ktIA
	answered   map[string]bool
	notInStack map[string]time.Time // latest moment the request was surely not in the dialog stack
	controls   int
	width      int
	queue      []ktOp
	last       *ktScreen // the screen after the last operation
}

func newKeyTrust(t *testing.T, seed int64, stats *ktStats) *keyTrust {
	h := newHarness(t, scenario(), 80, 24)
	return &keyTrust{t: t, h: h, seed: seed, stats: stats, seq: map[string]uint64{"login-fix": 100, "docs-typo": 100},
		pending: map[string]*ktIA{}, answered: map[string]bool{}, notInStack: map[string]time.Time{}, width: 80}
}

// ---- generation ----

// Keys that act somewhere: answers, views, dialogs, forms. Never e, L, ctrl+e or ctrl+d, which
// reach outside the test (an editor, a checkout, a contract draft).
var ktSingles = []string{
	"a", "a", "S", "R", "d", "d", "t", "i", "i", "n", "q", "y", "x", "X", "s", "F", "p", "P", "c", "C",
	"j", "k", "J", "K", "1", "2", "2", "3", "4", "5", "9", "/", "/", "?", "f", "g", "G", "[", "]", "{",
	".", "v", "w", "A", "h", "l", "N", "r", "b", "o", "u", "z",
	"enter", "enter", "enter", "esc", "esc", "tab", "shift+tab", "up", "down", "left", "right", "pgup",
	"pgdown", "home", "end", "backspace", "space", "ctrl+s", "ctrl+x", "ctrl+c", "ctrl+z", "ctrl+r",
	"ctrl+u", "ctrl+o",
}

// Ways into each mode, pressed as separate reads.
var ktModes = [][]string{
	{"1", "/"}, {"1", "/"}, {"1", "/"}, {"1", "f"}, {"4", "/"}, {"4"}, {"2"}, {"3"}, {"n"}, {"s"}, {"x"}, {"X"},
	{"?"}, {"P"}, {"F"}, {"2", "J", "c"}, {"2", "J", "J", "c"}, {"p"}, {"i"}, {"j"}, {"k"}, {"esc"}, {"1", "/", "enter"},
}

var ktWords = []string{"make", "gamma", "looking for the make gamma call", "and data added", "ErrNoUser", "ad", "2", "yes"}

func ktKey(name string) tea.KeyMsg {
	switch name {
	case "ctrl+c":
		return tea.KeyMsg{Type: tea.KeyCtrlC}
	case "ctrl+z":
		return tea.KeyMsg{Type: tea.KeyCtrlZ}
	case "ctrl+r":
		return tea.KeyMsg{Type: tea.KeyCtrlR}
	case "ctrl+u":
		return tea.KeyMsg{Type: tea.KeyCtrlU}
	case "ctrl+o":
		return tea.KeyMsg{Type: tea.KeyCtrlO}
	case "space":
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	}
	return keyMsg(name)
}

func ktName(m tea.Msg) string {
	k, ok := m.(tea.KeyMsg)
	if !ok {
		return fmt.Sprintf("%T", m)
	}
	if k.Paste {
		return "paste " + strconv.Quote(string(k.Runes))
	}
	return strconv.Quote(k.String())
}

func ktRead(msgs ...tea.Msg) ktOp {
	names := make([]string, len(msgs))
	for i, m := range msgs {
		names[i] = ktName(m)
	}
	return ktOp{desc: "read " + strings.Join(names, " "), msgs: msgs}
}

var ktTasks = []string{"login-fix", "docs-typo"}

func (kt *keyTrust) request(kind int, task string) ktOp {
	kt.nextIA++
	id := fmt.Sprintf("ia-%d", kt.nextIA)
	var ia core.Interaction
	switch kind % 5 {
	case 0:
		ia = permissionIA(id)
	case 1: // no session-wide allow offered
		ia = permissionIA(id)
		ia.Request.Title, ia.Request.Argv = "make gamma", []string{"make", "gamma"}
		ia.Request.Options = []core.InteractionOption{ia.Request.Options[0], ia.Request.Options[2]}
	case 2:
		ia = questionIA(id)
	case 3:
		ia = questionIA(id)
		ia.Request.Options = append(ia.Request.Options, core.InteractionOption{OptionID: "o3", Name: "ErrBlank"})
	case 4: // free text only
		ia = questionIA(id)
		ia.Request.Options = nil
	}
	kt.seq[task]++
	r := &ktIA{task: task, ia: ia}
	return ktOp{desc: fmt.Sprintf("%s %s arrives on %s", ia.Kind, id, task), arrival: r,
		msgs: []tea.Msg{ev(task, kt.seq[task], core.EventInteractionWaiting, ia)}}
}

func (kt *keyTrust) resolved(n int) ktOp {
	var ids []string
	for id := range kt.pending {
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		return ktOp{desc: "nothing to resolve"}
	}
	sortStrings(ids)
	p := kt.pending[ids[n%len(ids)]]
	ia := p.ia
	ia.Status = core.InteractionResolved
	ia.Response = &core.InteractionResponse{Decision: core.DecisionDeny, By: core.ByCodex}
	kt.seq[p.task]++
	delete(kt.pending, ia.ID)
	return ktOp{desc: ia.ID + " answered elsewhere", msgs: []tea.Msg{ev(p.task, kt.seq[p.task], core.EventInteractionResolved, ia)}}
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// The streams include a terminal below the dashboard's minimum size, where only a notice is on
// screen and no key may answer the prompt behind it.
var ktSizes = [][2]int{{80, 24}, {80, 24}, {120, 40}, {60, 16}, {160, 45}, {100, 30}, {50, 12}}

// randomOp draws the next operation. Mode changes and typing are queued as several operations.
func (kt *keyTrust) randomOp(rng *rand.Rand) ktOp {
	if len(kt.queue) > 0 {
		op := kt.queue[0]
		kt.queue = kt.queue[1:]
		return op
	}
	switch n := rng.Intn(100); {
	case n < 38:
		return ktRead(ktKey(ktSingles[rng.Intn(len(ktSingles))]))
	case n < 43: // several runes in one key message
		return ktRead(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(ktRunes(rng, 2+rng.Intn(4)))})
	case n < 48: // several keys in one read
		var msgs []tea.Msg
		for i := 0; i < 2+rng.Intn(3); i++ {
			msgs = append(msgs, ktKey(ktSingles[rng.Intn(len(ktSingles))]))
		}
		return ktRead(msgs...)
	case n < 51:
		return ktRead(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(ktWords[rng.Intn(len(ktWords))]), Paste: true})
	case n < 53:
		s := ktSizes[rng.Intn(len(ktSizes))]
		return ktOp{desc: fmt.Sprintf("resize %dx%d", s[0], s[1]), msgs: []tea.Msg{tea.WindowSizeMsg{Width: s[0], Height: s[1]}}}
	case n < 65:
		d := time.Duration(rng.Intn(3001)) * time.Millisecond
		if rng.Intn(3) == 0 {
			d = time.Duration(rng.Intn(600)) * time.Millisecond
		}
		return ktOp{desc: "advance " + d.String(), advance: d}
	case n < 72 && len(kt.pending) < 2:
		return kt.request(rng.Intn(5), ktTasks[rng.Intn(2)])
	case n < 76 && len(kt.pending) > 0:
		return kt.resolved(rng.Intn(100))
	case n < 76:
		return ktRead(ktKey(ktSingles[rng.Intn(len(ktSingles))]))
	case n < 82: // wait, often past the grace, then one answer key (or a selection) alone
		key := ktRead(ktKey([]string{"a", "d", "S", "R", "enter", "2", "1", "t", "down", "esc"}[rng.Intn(10)]))
		d := []time.Duration{300, 499, 500, 600, 1000, 1499, 1500, 1600, 1600, 2000}[rng.Intn(10)] * time.Millisecond
		wait := ktOp{desc: "advance " + d.String(), advance: d}
		if len(kt.pending) == 0 && rng.Intn(4) > 0 {
			kt.queue = append(kt.queue, kt.request(rng.Intn(5), ktTasks[rng.Intn(2)]))
		}
		if rng.Intn(2) == 0 { // close what is open and open the request first
			kt.queue = append(kt.queue, ktRead(ktKey("esc")), ktRead(ktKey("i")))
		}
		kt.queue = append(kt.queue, wait, key)
		return kt.randomOp(rng)
	case n < 91:
		mode := ktModes[rng.Intn(len(ktModes))]
		for _, k := range mode {
			kt.queue = append(kt.queue, ktRead(ktKey(k)))
		}
		return kt.randomOp(rng)
	default: // type a word, one key a read, time passing between some
		for _, r := range ktWords[rng.Intn(len(ktWords))] {
			kt.queue = append(kt.queue, ktRead(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}}))
			if rng.Intn(4) == 0 {
				kt.queue = append(kt.queue, ktOp{desc: "advance 400ms", advance: 400 * time.Millisecond})
			}
		}
		return kt.randomOp(rng)
	}
}

func ktRunes(rng *rand.Rand, n int) string {
	const alphabet = "aSRdtix2213q/ yn"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rng.Intn(len(alphabet))]
	}
	return string(b)
}

// decodeOp is randomOp for the fuzzer: an opcode, an argument and the bytes after them.
func (kt *keyTrust) decodeOp(code, arg byte, rest []byte) ktOp {
	switch code % 10 {
	case 0, 1:
		return ktRead(ktKey(ktSingles[int(arg)%len(ktSingles)]))
	case 2:
		return ktRead(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(ktWords[int(arg)%len(ktWords)][:1] + string(rune('a'+arg%26)))})
	case 3:
		a, b := ktSingles[int(arg)%len(ktSingles)], ktSingles[int(arg/7)%len(ktSingles)]
		return ktRead(ktKey(a), ktKey(b))
	case 4:
		return ktRead(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(ktWords[int(arg)%len(ktWords)]), Paste: true})
	case 5:
		s := ktSizes[int(arg)%len(ktSizes)]
		return ktOp{desc: fmt.Sprintf("resize %dx%d", s[0], s[1]), msgs: []tea.Msg{tea.WindowSizeMsg{Width: s[0], Height: s[1]}}}
	case 6:
		d := time.Duration(arg) * 12 * time.Millisecond // 0 to ~3 s
		return ktOp{desc: "advance " + d.String(), advance: d}
	case 7:
		return kt.request(int(arg), ktTasks[int(arg/5)%2])
	case 8:
		return kt.resolved(int(arg))
	default:
		mode := ktModes[int(arg)%len(ktModes)]
		var msgs []tea.Msg
		for _, k := range mode {
			msgs = append(msgs, ktKey(k))
		}
		// A mode's keys in one read: as separate reads the fuzzer spells them key by key.
		return ktRead(msgs...)
	}
}

// ---- checking ----

// screen is what the test knows from one look at the screen.
type ktScreen struct {
	view        string
	known       bool   // the screen is a full dashboard (not the "too small" notice)
	dialog      bool   // some dialog is drawn
	promptID    string // the request whose dialog is on top, if any
	kindShown   string
	paused      bool // the prompt's key grace is running
	answering   bool // typing a free-text answer
	selected    int  // the question's selected option (1-based), 0 for none
	search      string
	searchKnown bool // the whole query is on the line
	searching   bool // a search line is drawn, no dialog over it
}

func (kt *keyTrust) look() ktScreen {
	v := kt.h.view()
	s := ktScreen{view: v, known: !strings.Contains(v, "needs a terminal of at least")}
	s.dialog = strings.Contains(v, "╭")
	for _, title := range []string{"Permission requested  task ", "The worker asks  task "} {
		i := strings.Index(v, title)
		if i < 0 {
			continue
		}
		line := v[i+len(title):]
		line = line[:strings.IndexAny(line+"\n", "\n│")]
		if _, id, ok := strings.Cut(line, " · "); ok {
			id, _, _ = strings.Cut(id, " ")
			s.promptID = strings.TrimRight(id, "…")
		}
		s.kindShown = core.InteractionPermission
		if strings.HasPrefix(title, "The worker") {
			s.kindShown = core.InteractionInput
		}
	}
	s.paused = strings.Contains(v, "keys paused")
	// A tall dialog on a small screen scrolls its body: the answer being typed or the selected
	// option can be out of view, but its key line always says what enter does.
	s.answering = strings.Contains(v, "│ answer ") || strings.Contains(v, "enter send · esc back")
	for n := 1; n <= 9; n++ {
		if strings.Contains(v, fmt.Sprintf("│ › %d ", n)) || strings.Contains(v, fmt.Sprintf("enter answer %d", n)) {
			s.selected = n
		}
	}
	for _, line := range strings.Split(v, "\n") {
		if s.dialog || !strings.HasPrefix(line, " /") {
			continue
		}
		// A long query pushes the cursor and the rest off the line: the query is then unknown.
		s.searching = true
		if j := strings.Index(line, "▏"); j >= 0 {
			s.search, s.searchKnown = line[2:j], true
		}
	}
	return s
}

func (kt *keyTrust) fail(before ktScreen, format string, args ...any) {
	kt.t.Helper()
	from := max(len(kt.done)-40, 0)
	kt.t.Fatalf("key trust broken (seed %d, operation %d; again: KEYTRUST_SEQS=1 go test ./tui -run TestKeyTrustProperty -keytrust.seed=%d): %s\nthe last operations:\n  %s\nthe screen before the last one:\n%s\nthe screen now:\n%s",
		kt.seed, len(kt.done)-1, kt.seed, fmt.Sprintf(format, args...), strings.Join(kt.done[from:], "\n  "), before.view, kt.h.view())
}

// answerKey says whether key may give resp to the request shown on before, and why not.
func answerKey(p *ktIA, before ktScreen, key tea.KeyMsg, resp core.Respond) string {
	k := key.String()
	kind := p.ia.Kind
	if before.answering {
		if k != "enter" || resp.Answer == "" || resp.OptionID != "" || resp.Decision != core.DecisionAllow {
			return "while typing an answer only enter sends it, as the typed text"
		}
		return ""
	}
	switch {
	case kind == core.InteractionPermission && k == "a":
		if resp.Decision == core.DecisionAllow && resp.OptionID == "" && !resp.Grant {
			return ""
		}
	case kind == core.InteractionPermission && k == "S":
		if o, ok := p.ia.Request.SessionOption(); ok && resp.Decision == core.DecisionAllow && resp.OptionID == o.OptionID && !resp.Grant {
			return ""
		}
	case kind == core.InteractionPermission && k == "R":
		if p.ia.Request.Grantable() && resp.Decision == core.DecisionAllow && resp.Grant {
			return ""
		}
	case k == "d":
		if resp.Decision == core.DecisionDeny {
			return ""
		}
	case kind == core.InteractionInput && k == "enter":
		opts := p.ia.Request.Options
		if before.selected > 0 && before.selected <= len(opts) && resp.Decision == core.DecisionAllow &&
			resp.OptionID == opts[before.selected-1].OptionID && resp.Answer == "" {
			return ""
		}
		return fmt.Sprintf("enter answers only with the option shown selected (%d)", before.selected)
	}
	return fmt.Sprintf("%q does not give %+v to a %s", k, resp, kind)
}

// screen is the screen now, drawn once per state. Each look also tells what the test knows of
// the dialog stack: a request is surely not in it when no dialog is drawn, or when another
// request's prompt is (prompts open only over an empty stack).
func (kt *keyTrust) screen() ktScreen {
	if kt.last != nil {
		return *kt.last
	}
	l := kt.look()
	kt.stats.looks++
	kt.last = &l
	if l.known {
		for id := range kt.pending {
			if !l.dialog || (l.promptID != "" && l.promptID != id) {
				kt.notInStack[id] = kt.h.clk.Now()
			}
		}
	}
	return l
}

// do performs one operation and checks everything the test can see after it.
func (kt *keyTrust) do(op ktOp) {
	kt.t.Helper()
	h := kt.h
	capturing := h.m.capturing()
	// The screen is drawn only when something depends on it: a request that may be on screen,
	// a search being typed, a request arriving. Drawing is most of the test's time.
	var before ktScreen
	if len(op.msgs) > 0 && (len(kt.pending) > 0 || capturing || op.arrival != nil) {
		before = kt.screen()
	}
	now := h.clk.Now()
	kt.done = append(kt.done, op.desc)
	if op.advance > 0 {
		h.clk.advance(op.advance)
	}
	if len(op.msgs) > 0 {
		kt.stats.reads++
		h.send(op.msgs...)
	}
	for _, m := range op.msgs {
		if w, ok := m.(tea.WindowSizeMsg); ok {
			kt.width = w.Width
		}
	}
	if op.arrival != nil {
		kt.pending[op.arrival.ia.ID] = op.arrival
		kt.notInStack[op.arrival.ia.ID] = now
	}
	kt.last = nil
	var after ktScreen
	if op.arrival != nil || (capturing && before.searching) {
		after = kt.screen()
	}

	// Every answer sent is explained by this read.
	log := h.svc.controlLog()
	var answers []core.Respond
	for _, c := range log[kt.controls:] {
		if r, ok := c.(core.Respond); ok {
			answers = append(answers, r)
		}
	}
	kt.controls = len(log)
	var key tea.KeyMsg
	single := false
	if len(op.msgs) == 1 {
		key, single = op.msgs[0].(tea.KeyMsg)
		single = single && !key.Paste && (key.Type != tea.KeyRunes || len(key.Runes) == 1)
	}
	shown := kt.pending[before.promptID] // the request on screen before the read, if waiting
	if len(answers) > 1 {
		kt.fail(before, "one read sent %d answers: %+v", len(answers), answers)
	}
	for _, a := range answers {
		p := kt.pending[a.InteractionID]
		switch {
		case kt.answered[a.InteractionID]:
			kt.fail(before, "%s answered twice: %+v", a.InteractionID, a)
		case p == nil:
			kt.fail(before, "an answer to %s, which is not waiting: %+v", a.InteractionID, a)
		case !single:
			kt.fail(before, "an answer from a read that is not one key alone: %+v", a)
		case before.promptID != a.InteractionID || before.kindShown != p.ia.Kind || a.TaskID != p.task:
			kt.fail(before, "an answer to %s of %s while the screen showed the prompt of %q", a.InteractionID, p.task, before.promptID)
		case before.paused:
			kt.fail(before, "an answer while the screen said keys are paused: %+v", a)
		case now.Sub(kt.notInStack[a.InteractionID]) < graceQuiet:
			kt.fail(before, "an answer %v after its prompt can have opened (grace %v): %+v", now.Sub(kt.notInStack[a.InteractionID]), graceQuiet, a)
		}
		if why := answerKey(p, before, key, a); why != "" {
			kt.fail(before, "answer %+v from key %q: %s", a, key.String(), why)
		}
		kt.answered[a.InteractionID] = true
		delete(kt.pending, a.InteractionID)
		kt.stats.answers++
	}

	// An answer key alone on a prompt past its grace does answer.
	if single && before.known && before.promptID != "" && !before.paused {
		if p := shown; p != nil && p.ia.Kind == before.kindShown {
			k := key.String()
			due := false
			switch {
			case before.answering:
			case p.ia.Kind == core.InteractionPermission:
				_, session := p.ia.Request.SessionOption()
				due = k == "a" || k == "d" || (k == "S" && session) || (k == "R" && p.ia.Request.Grantable())
			default:
				due = k == "d" || (k == "enter" && before.selected > 0)
			}
			if due && len(answers) == 0 {
				kt.fail(before, "%q alone on the prompt of %s past its grace did not answer", k, p.ia.ID)
			}
			if due {
				kt.stats.due++
			}
		}
	}

	// A request never opens over a search being typed, and the search gets every rune.
	if before.known && after.known && capturing && before.searching && !before.dialog {
		runes, text := "", op.arrival == nil
		for _, m := range op.msgs {
			k, ok := m.(tea.KeyMsg)
			if !ok || (k.Type != tea.KeyRunes && k.Type != tea.KeySpace) {
				text = false
				break
			}
			runes += string(k.Runes)
		}
		if (text && len(op.msgs) > 0) || op.arrival != nil {
			if after.dialog {
				kt.fail(before, "a dialog opened over the search being typed")
			}
			if !h.m.capturing() || !after.searching {
				kt.fail(before, "the search stopped taking keys after %s", op.desc)
			}
			want := before.search + runes
			if before.searchKnown && len(want)+40 < kt.width && after.search != want {
				kt.fail(before, "the search reads %q, want %q", after.search, want)
			}
			if op.arrival != nil {
				kt.stats.held++
			} else {
				kt.stats.searchRunes += len(runes)
			}
		}
	}
	// A request arriving while a dialog is open or text is typed changes nothing on top.
	if op.arrival != nil && before.known && after.known && (before.dialog || capturing) && after.promptID != before.promptID {
		kt.fail(before, "%s opened over what was on screen", op.arrival.ia.ID)
	}
	// A request arriving is on screen or counted in the header.
	if op.arrival != nil && after.known && kt.width >= 80 && after.promptID == "" && !strings.Contains(after.view, "waiting for you (i)") {
		kt.fail(before, "%s arrived but neither opened nor is announced", op.arrival.ia.ID)
	}
}

// On a terminal below the minimum size the screen shows only a notice; a prompt behind it is
// not on screen, so no key may answer it, and once the terminal is large enough again its
// grace starts then.
func TestKeyTrustTooSmallTerminal(t *testing.T) {
	h := newHarness(t, scenario(), 80, 24)
	h.send(ev("login-fix", 100, core.EventInteractionWaiting, permissionIA("ia-1")))
	h.send(tea.WindowSizeMsg{Width: 50, Height: 12})
	h.clk.advance(2 * time.Second)
	h.requireView("needs a terminal of at least")
	h.press("a")
	h.requireControls()
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.requireView("Permission requested", "keys paused")
	h.press("a") // at once: the person has not faced it yet
	h.requireControls()
	h.clk.advance(time.Second)
	h.press("a")
	h.requireControls(core.Respond{TaskID: "login-fix", InteractionID: "ia-1", Decision: core.DecisionAllow})
}

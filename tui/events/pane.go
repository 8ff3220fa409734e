package events

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"reasonixctl/core"
	"reasonixctl/core/safetext"
	"reasonixctl/tui/term"
	"reasonixctl/tui/words"
)

// Kind picks the style of an event entry.
type Kind uint8

const (
	kindInfo Kind = iota
	kindAgent
	kindThought
	kindTool
	kindAllow
	kindDeny
	kindAsk
	kindState
	kindUsage
	kindSteer
	kindError
)

const (
	// MaxLines bounds each task's buffer, counted in wrapped lines kept (shown or folded
	// away) and in entries; the oldest go first.
	MaxLines = 5000
	// maxDetailBytes bounds each field a tool call or decision keeps for its expanded view.
	maxDetailBytes = 4 << 10
	// maxHeadBytes bounds the text of a one-line header.
	maxHeadBytes = 512
	// maxPlainBytes bounds the text of one plain entry (an unknown event, a long error).
	maxPlainBytes = 8 << 10
)

type foldState uint8

const (
	foldAuto foldState = iota // reasoning: open while it streams, folded once anything follows
	foldOpen
	foldClosed
)

// entry is one item of the pane: an agent message, a reasoning block, a tool call, a decision
// or a one-line event.
type entry struct {
	id    uint64
	kind  Kind
	cat   category // what the filter sorts it under
	label string   // printed before the first line of a plain entry
	paras []*para  // the text; for expandable entries, what shows when open
	cut   bool     // the oldest lines were dropped to keep the buffer bounded

	expandable bool
	open       bool      // tool calls and decisions
	fold       foldState // reasoning blocks
	words      int       // reasoning blocks: words so far
	midWord    bool

	head    string             // tool calls and decisions: the folded line, after the label
	details []string           // decisions: the expanded text
	tool    *core.ToolCallData // tool calls: the merged state, input and output capped

	seq     uint64    // the journal seq of the first event shown in it
	marks   []seqMark // streamed text: where each event's text begins, oldest kept first
	dropped int       // paragraphs cut from the front

	lines    int // wrapped lines over all paragraphs
	nonEmpty int // paragraphs with at least one line
	n        int // display lines at the current width and fold state
	cost     int // lines kept, shown or not
}

// seqMark says that the text of event seq begins at stream offset off of paragraph para
// (counted from the entry's first paragraph ever, dropped ones included).
type seqMark struct {
	para, off int
	seq       uint64
}

func (m seqMark) before(para, off int) bool { return m.para < para || (m.para == para && m.off < off) }

// body is the number of display lines of the paragraphs, blank separators included.
func (e *entry) body() int { return e.lines + max(e.nonEmpty-1, 0) }

// dline is one display line before styling.
type dline struct {
	prefix string // label or indentation
	text   string
	e      *entry
	header bool
}

// pos is a display line: line off of the entry with that id.
type pos struct {
	id  uint64
	off int
}

// Pane shows one task's event stream as readable prose: streamed agent text is one
// paragraph growing in place, reasoning folds away, tool calls are one line updated in place and
// expand to their input and output. The reader's place is an entry and a line in it, so events
// arriving below, folds and the buffer bound trimming above never move what they are reading.
type Pane struct {
	env    *Env
	taskID string

	entries []*entry // live entries are entries[head:], ids increasing
	head    int
	nextID  uint64
	cost    int // sum of entry costs
	w, h    int
	lastSeq uint64 // the newest event in the pane

	// The pane is a window on the journal: lo is the oldest event it shows (loPartial: only
	// the end of it, its start was cut), lastSeq the newest. Older events are read again from
	// the journal a page at a time as the reader scrolls up; a pane that grew too long at its
	// old end drops its newest entries and is detached from the live stream until the reader
	// pages forward again (or G reloads the tail).
	lo        uint64
	loPartial bool
	detached  bool
	liveSeq   uint64 // the newest event the live stream delivered
	limit     int    // the bound on lines and entries kept
	cur       uint64 // the seq being added
	want      int    // a page the reader scrolled to: -1 older, 1 newer, 2 the live tail
	loading   bool
	paging    bool // a page forward is being added
	// dataLines and dataEvents measure the events read, to size pages.
	dataLines, dataEvents uint64

	tools   map[string]*entry
	msg     *entry // the agent message text is appended to, until another entry interrupts it
	thought *entry // the reasoning block text is appended to
	usage   *entry
	// answered is the permission answered by the event just added, if any.
	answered *answeredAsk

	sel    uint64 // the selected entry's id, 0 for none
	anchor *pos   // the top line while the reader is scrolled away from the live tail; nil follows

	filter  eventFilter
	search  paneSearch
	version uint64 // counts changes of the entries' text, so search results know when to redo
	seekGen uint64 // counts searches of the journal, so a stopped one's page is ignored
}

// New is the events pane of task taskID, empty until events are added.
func New(env *Env, taskID string) *Pane {
	// Ids start high so that pages of older events can be put in front with smaller ones.
	return &Pane{env: env, taskID: taskID, w: 81, h: 20, tools: map[string]*entry{}, nextID: firstID, limit: MaxLines}
}

// firstID is the id of a new pane's first entry.
const firstID = 1 << 40

// following says whether the pane shows the live tail.
func (p *Pane) following() bool { return p.anchor == nil }

// empty says whether the pane holds no entry.
func (p *Pane) empty() bool { return p.head == len(p.entries) }

// textWidth is the width entries wrap to: one column is the pane's left margin.
func (p *Pane) textWidth() int { return max(p.w-1, 1) }

// add ingests one journal event; events at or below the last seq seen are duplicates.
func (p *Pane) add(ev core.Event) {
	if ev.Seq != 0 && ev.Seq <= p.lastSeq {
		return
	}
	if ev.Seq != 0 {
		p.lastSeq = ev.Seq
		if p.lo == 0 {
			p.lo = ev.Seq
		}
	}
	p.liveSeq = max(p.liveSeq, p.lastSeq)
	p.cur = ev.Seq
	p.dataLines += estLines(ev, p.textWidth())
	p.dataEvents++
	p.version++
	answered := p.answered
	p.answered = nil
	switch ev.Type {
	case core.EventAgentMessage:
		p.addMessage(safetext.Sanitize(textOf(ev)))
	case core.EventAgentThought:
		p.addThought(safetext.Sanitize(textOf(ev)))
	case core.EventToolCall:
		d, _ := core.DataOf[core.ToolCallData](ev)
		p.addTool(d)
	case core.EventPermissionDecided:
		d, _ := core.DataOf[core.PermissionData](ev)
		if a := answered; a != nil && d.Grant != "" && d.By != core.ByGrant && p.last() == a.e && slices.Equal(d.Argv, a.ia.Request.Argv) {
			// The answer's record says only which of the worker's options it took (allow once);
			// the decision that follows it says the person also granted the command for the
			// repository, which the answer's line must say too.
			_, text := resolvedText(a.ia, true)
			p.setPlain(a.e, safetext.Sanitize(term.CapText(text, maxPlainBytes)))
		}
		label, head := permissionHeader(d)
		details := permissionDetail(d)
		for i := range details {
			details[i] = term.CapText(details[i], maxDetailBytes)
		}
		p.interrupt()
		p.push(&entry{kind: permissionKind(d.Decision), cat: catDecision, label: safetext.Line(label), head: safetext.Line(term.CapText(head, maxHeadBytes)),
			expandable: true, details: details})
	case core.EventUsage:
		// Usage reports replace each other and do not interrupt a message or reasoning: they
		// arrive whenever the worker counts, often mid-sentence.
		kind, text := formatEvent(ev)
		if p.usage != nil && p.last() == p.usage {
			p.setPlain(p.usage, safetext.Sanitize(text))
		} else {
			p.usage = p.push(plainEntry(kind, safetext.Sanitize(text)))
		}
	default:
		kind, text := formatEvent(ev)
		text = safetext.Sanitize(term.CapText(text, maxPlainBytes))
		if strings.TrimSpace(text) == "" {
			return
		}
		p.interrupt()
		e := plainEntry(kind, text)
		e.cat = categoryOf(ev.Type)
		p.push(e)
		if ev.Type == core.EventInteractionResolved {
			if d, ok := core.DataOf[core.InteractionResolvedData](ev); ok && d.Kind == core.InteractionPermission &&
				d.Response != nil && d.Response.Decision == core.DecisionAllow {
				p.answered = &answeredAsk{e: e, ia: core.Interaction(d)}
			}
		}
	}
	p.trim()
}

// answeredAsk is the line of a permission just answered with an allow, which the decision
// right after it may complete (see add).
type answeredAsk struct {
	e  *entry
	ia core.Interaction
}

func plainEntry(kind Kind, text string) *entry {
	return &entry{kind: kind, paras: []*para{{text: []byte(text)}}}
}

// interrupt ends the current message and reasoning block: what comes next starts new ones.
func (p *Pane) interrupt() {
	p.msg = nil
	if t := p.thought; t != nil {
		p.thought = nil
		p.measure(t)
	}
}

func (p *Pane) addMessage(text string) {
	if p.msg == nil {
		if strings.TrimSpace(text) == "" {
			return
		}
		p.interrupt()
		p.msg = p.push(&entry{kind: kindAgent, cat: catAgent, label: agentLabel, paras: []*para{{}}})
	}
	p.grow(p.msg, text)
}

func (p *Pane) addThought(text string) {
	if p.thought == nil {
		if strings.TrimSpace(text) == "" {
			return
		}
		p.interrupt()
		p.thought = p.push(&entry{kind: kindThought, cat: catAgent, expandable: true, paras: []*para{{}}})
	}
	e := p.thought
	for i := 0; i < len(text); i++ {
		if c := text[i]; c == ' ' || c == '\n' {
			e.midWord = false
		} else if !e.midWord {
			e.midWord = true
			e.words++
		}
	}
	p.grow(e, text)
}

// grow appends streamed text to e: a blank line ("\n\n", even split across chunks) starts a
// new paragraph; only the last paragraph is re-wrapped.
func (p *Pane) grow(e *entry, s string) {
	last := e.paras[len(e.paras)-1]
	if n := len(e.marks); n == 0 || e.marks[n-1].seq != p.cur {
		e.marks = append(e.marks, seqMark{para: e.dropped + len(e.paras) - 1, off: last.base + len(last.text), seq: p.cur})
	}
	before := len(last.lines)
	lastBefore := last
	if n := len(last.text); n > 0 && last.text[n-1] == '\n' && strings.HasPrefix(s, "\n") {
		last = p.newPara(e)
		s = s[1:]
	}
	for i, part := range strings.Split(s, "\n\n") {
		if i > 0 {
			last = p.newPara(e)
		}
		first, rest := p.widths(e, last)
		last.appendText(part, first, rest)
	}
	// Account for the paragraphs touched: the old last one and any new ones.
	e.lines -= before
	if before > 0 {
		e.nonEmpty--
	}
	for _, q := range e.paras[p.indexOf(e, lastBefore):] {
		e.lines += len(q.lines)
		if len(q.lines) > 0 {
			e.nonEmpty++
		}
	}
	p.measure(e)
}

func (p *Pane) indexOf(e *entry, q *para) int {
	for i := len(e.paras) - 1; i >= 0; i-- {
		if e.paras[i] == q {
			return i
		}
	}
	return 0
}

// newPara starts a paragraph in e, unless the last one is still empty.
func (p *Pane) newPara(e *entry) *para {
	last := e.paras[len(e.paras)-1]
	if len(last.text) == 0 {
		return last
	}
	last.text = []byte(strings.TrimRight(string(last.text), "\n "))
	last.blanks = 0
	q := &para{}
	e.paras = append(e.paras, q)
	return q
}

// widths are the wrap widths of paragraph q of e: its first line and the others.
func (p *Pane) widths(e *entry, q *para) (first, rest int) {
	w := p.textWidth()
	if e.expandable {
		return w - 2, w - 2
	}
	if !e.cut && len(e.paras) > 0 && e.paras[0] == q {
		return w - ansi.StringWidth(e.label), w - 2
	}
	return w - 2, w - 2
}

func (p *Pane) addTool(d core.ToolCallData) {
	// Only what the expanded view shows is kept, and bounded: an edit's input can be a file.
	d.Title = term.CapText(d.Title, maxHeadBytes)
	d.Kind = term.CapText(d.Kind, maxHeadBytes)
	d.ToolCallID = term.CapText(d.ToolCallID, maxHeadBytes)
	d.Output = term.CapText(d.Output, maxDetailBytes)
	if d.Input != nil {
		d.Input = term.CapText(words.CompactJSON(d.Input), maxDetailBytes)
	}
	if e := p.tools[d.ToolCallID]; e != nil && d.ToolCallID != "" {
		// Updates often carry only what changed: keep the rest.
		t := e.tool
		if d.Title != "" {
			t.Title = d.Title
		}
		if d.Kind != "" {
			t.Kind = d.Kind
		}
		if d.Status != "" {
			t.Status = term.CapText(d.Status, maxHeadBytes)
		}
		if d.Input != nil {
			t.Input = d.Input
		}
		if d.Output != "" {
			t.Output = d.Output
		}
		p.setToolHead(e)
		p.wrapAll(e)
		return
	}
	d.Status = term.CapText(d.Status, maxHeadBytes)
	p.interrupt()
	e := &entry{kind: kindTool, cat: catTool, label: "tool   ", expandable: true, tool: &d}
	p.setToolHead(e)
	p.push(e)
	if d.ToolCallID != "" {
		p.tools[d.ToolCallID] = e
	}
}

func (p *Pane) setToolHead(e *entry) {
	e.head = safetext.Line(toolHeader(e.tool))
	e.kind = kindTool
	if e.tool.Status == "failed" {
		e.kind = kindDeny
	}
}

func (p *Pane) setPlain(e *entry, text string) {
	e.paras = []*para{{text: []byte(text)}}
	e.lines, e.nonEmpty = 0, 0
	p.wrapAll(e)
}

func (p *Pane) push(e *entry) *entry {
	p.nextID++
	e.id = p.nextID
	e.seq = p.cur
	p.entries = append(p.entries, e)
	p.wrapAll(e)
	return e
}

func (p *Pane) last() *entry {
	if p.empty() {
		return nil
	}
	return p.entries[len(p.entries)-1]
}

// isOpen says whether an expandable entry shows its body.
func (p *Pane) isOpen(e *entry) bool {
	if e.kind == kindThought {
		switch e.fold {
		case foldOpen:
			return true
		case foldClosed:
			return false
		}
		return e == p.thought
	}
	return e.open
}

// wrapAll wraps every paragraph of e from scratch (a new entry, a new width, a detail view
// opened) and measures it.
func (p *Pane) wrapAll(e *entry) {
	switch {
	case e.kind != kindThought && e.expandable:
		// Their bodies are wrapped only while open: most are never looked at.
		e.paras = nil
		if e.open {
			texts := e.details
			if e.tool != nil {
				texts = toolDetail(e.tool)
			}
			e.paras = []*para{{text: []byte(safetext.Sanitize(strings.Join(texts, "\n")))}}
		}
	}
	e.lines, e.nonEmpty = 0, 0
	for _, q := range e.paras {
		first, rest := p.widths(e, q)
		q.rewrap(first, rest)
		e.lines += len(q.lines)
		if len(q.lines) > 0 {
			e.nonEmpty++
		}
	}
	p.measure(e)
}

// measure recomputes e's display lines and cost from its wrapped paragraphs.
func (p *Pane) measure(e *entry) {
	p.cost -= e.cost
	if e.expandable {
		e.n, e.cost = 1, 1+e.body()
		if p.isOpen(e) {
			e.n += e.body()
		}
	} else {
		e.n = e.body()
		e.cost = e.n
	}
	if !p.filter.shows(e) {
		e.n = 0
	}
	p.cost += e.cost
}

// trim drops the oldest entries beyond the bound. A message or reasoning block still
// streaming loses its oldest lines instead, so that a monologue stays bounded too. Dropping
// only advances head; the slice is compacted once half of it is dead.
func (p *Pane) trim() {
	for p.cost > p.limit || len(p.entries)-p.head > p.limit {
		e := p.entries[p.head]
		// A message still streaming loses its oldest lines; so does any message while a page
		// forward arrives, which the reader is usually in the middle of.
		cut := e == p.msg || e == p.thought || (p.paging && len(e.marks) > 0)
		if excess := p.cost - p.limit; excess > 0 && cut && e.cost > excess {
			p.cutLines(e, excess)
			break
		}
		if len(p.entries)-p.head == 1 {
			p.cutLines(e, p.cost-p.limit)
			break
		}
		p.evict(e)
	}
	if p.head > 64 && p.head*2 > len(p.entries) {
		p.entries = append([]*entry(nil), p.entries[p.head:]...)
		p.head = 0
	}
}

func (p *Pane) evict(e *entry) {
	p.cost -= e.cost
	if e.tool != nil && p.tools[e.tool.ToolCallID] == e {
		delete(p.tools, e.tool.ToolCallID)
	}
	switch e {
	case p.msg:
		p.msg = nil
	case p.thought:
		p.thought = nil
	case p.usage:
		p.usage = nil
	}
	if p.sel == e.id {
		p.sel = 0
	}
	p.entries[p.head] = nil
	p.head++
	if p.head < len(p.entries) {
		p.lo, p.loPartial = max(p.lo, p.entries[p.head].seq), false
	}
}

// cutLines drops at least n of e's oldest wrapped lines; a reader inside e stays on the
// line they were reading.
func (p *Pane) cutLines(e *entry, n int) {
	shown := e.n
	defer func() {
		if a := p.anchor; a != nil && a.id == e.id {
			a.off = max(a.off-(shown-e.n), 0)
		}
	}()
	for n > 0 && len(e.paras) > 0 {
		q := e.paras[0]
		k := len(q.lines)
		if k <= n && len(e.paras) > 1 {
			e.paras = e.paras[1:]
			e.dropped++
			e.lines -= k
			if k > 0 {
				e.nonEmpty--
				n-- // its blank line
			}
			n -= k
			continue
		}
		d := min(n, k)
		q.dropLines(d)
		e.lines -= d
		if k > 0 && len(q.lines) == 0 {
			e.nonEmpty--
		}
		break
	}
	if !e.cut && len(e.paras) > 0 {
		// The label went with the first line; the first line left wraps like the others.
		q := e.paras[0]
		k := len(q.lines)
		e.cut = true
		first, rest := p.widths(e, q)
		q.rewrap(first, rest)
		e.lines += len(q.lines) - k
		if k == 0 && len(q.lines) > 0 {
			e.nonEmpty++
		}
	}
	e.cut = true
	p.measure(e)
	p.noteCut(e)
}

// noteCut moves the pane's oldest event to the one whose text e now starts in.
func (p *Pane) noteCut(e *entry) {
	p.loPartial = true
	if len(e.marks) == 0 || len(e.paras) == 0 {
		p.lo = max(p.lo, e.seq)
		return
	}
	q := e.paras[0]
	para, off := e.dropped, q.base
	if len(q.lines) > 0 {
		off = q.lines[0].start
	}
	k := 0
	for k+1 < len(e.marks) && !para0Before(para, off, e.marks[k+1]) {
		k++
	}
	e.marks = e.marks[k:]
	m := e.marks[0]
	e.seq = m.seq
	p.lo, p.loPartial = max(p.lo, m.seq), m.before(para, off)
}

// para0Before says whether (para, off) comes before mark m.
func para0Before(para, off int, m seqMark) bool {
	return para < m.para || (para == m.para && off < m.off)
}

// setSize sets the pane to h lines of w columns.
func (p *Pane) setSize(w, h int) {
	w, h = max(w, 0), max(h, 0)
	p.h = h
	if w == p.w {
		return
	}
	p.w = w
	for _, e := range p.entries[p.head:] {
		p.wrapAll(e)
	}
	p.trim()
}

// ---- positions ----

// find returns the index of the live entry with id, or of the first live entry after it.
func (p *Pane) find(id uint64) int {
	live := p.entries[p.head:]
	return p.head + sort.Search(len(live), func(i int) bool { return live[i].id >= id })
}

// at resolves a position to an entry index and line, clamped to the live entries.
func (p *Pane) at(q pos) (int, int) {
	i := p.find(q.id)
	if i >= len(p.entries) {
		return p.tailIndex()
	}
	if p.entries[i].id != q.id {
		return i, 0
	}
	return i, term.Clamp(q.off, 0, max(p.entries[i].n-1, 0))
}

func (p *Pane) tailIndex() (int, int) {
	i := len(p.entries) - 1
	for i > p.head && p.entries[i].n == 0 {
		i-- // filtered out: the tail is the last line shown
	}
	if i < p.head {
		return p.head, 0
	}
	return i, max(p.entries[i].n-1, 0)
}

func (p *Pane) posOf(i, off int) pos {
	if i >= len(p.entries) || i < p.head {
		return pos{}
	}
	return pos{id: p.entries[i].id, off: off}
}

// up moves (i, off) n display lines towards the oldest, stopping at the first line.
func (p *Pane) up(i, off, n int) (int, int) {
	off -= n
	for off < 0 && i > p.head {
		i--
		off += p.entries[i].n
	}
	return i, max(off, 0)
}

// down moves (i, off) n display lines towards the newest; ok is false when it ran past the end.
func (p *Pane) down(i, off, n int) (int, int, bool) {
	off += n
	for i < len(p.entries) && off >= p.entries[i].n {
		off -= p.entries[i].n
		i++
	}
	if i >= len(p.entries) {
		return i, off, false
	}
	return i, off, true
}

// linesFrom counts the display lines from (i, off) to the end, stopping once past limit.
func (p *Pane) linesFrom(i, off, limit int) int {
	n := 0
	for ; i < len(p.entries) && n <= limit; i++ {
		n += p.entries[i].n - off
		off = 0
	}
	return n
}

// bodyHeight is the number of event lines: one line goes to the note while scrolled back.
func (p *Pane) bodyHeight() int {
	h := p.h
	if p.search.shown() {
		h--
	}
	if !p.following() {
		h--
	}
	return max(h, 0)
}

// top is the index and line of the window's first line at body height bh.
func (p *Pane) top(bh int) (int, int) {
	bh = max(bh, 1)
	if p.empty() {
		return p.head, 0
	}
	if p.anchor != nil {
		i, off := p.at(*p.anchor)
		if p.linesFrom(i, off, bh) >= bh {
			return i, off
		}
	}
	// The live tail, or an anchor too close to it to fill the window.
	i, off := p.tailIndex()
	return p.up(i, off, bh-1)
}

// pin stops following, keeping the window where it is.
func (p *Pane) pin() {
	if p.anchor != nil || p.empty() {
		return
	}
	i, off := p.top(max(p.h-1, 1))
	a := p.posOf(i, off)
	p.anchor = &a
}

// ---- selection ----

// selected is the index of the selected entry, or -1.
func (p *Pane) selected() int {
	if p.sel == 0 {
		return -1
	}
	i := p.find(p.sel)
	if i >= len(p.entries) || p.entries[i].id != p.sel {
		p.sel = 0
		return -1
	}
	return i
}

// selectItem moves the selection to the previous (dir -1) or next expandable entry; with
// nothing selected it starts from the window's bottom or top line.
func (p *Pane) selectItem(dir int) keyStep {
	if p.empty() {
		return keyStep{status: noEvents}
	}
	p.pin()
	from := p.selected()
	if from >= 0 {
		from += dir
	} else {
		bh := p.bodyHeight()
		i, off := p.top(bh)
		if dir < 0 {
			if j, _, ok := p.down(i, off, max(bh-1, 0)); ok {
				i = j
			} else {
				i = len(p.entries) - 1
			}
		}
		from = i
	}
	for i := from; i >= p.head && i < len(p.entries); i += dir {
		if e := p.entries[i]; e.expandable && e.n > 0 {
			p.sel = e.id
			p.reveal(e)
			return keyStep{}
		}
	}
	return keyStep{}
}

// reveal scrolls so that e's first line is in the window and as much of the rest as fits.
func (p *Pane) reveal(e *entry) {
	if p.anchor == nil {
		return
	}
	bh := max(p.bodyHeight(), 1)
	ei := p.find(e.id)
	ti, toff := p.top(bh)
	if ei < ti || (ei == ti && toff > 0) {
		p.anchor = &pos{id: e.id}
		return
	}
	// Lines from the window's top to e's last line.
	n := 0
	for i := ti; i <= ei; i++ {
		n += p.entries[i].n
	}
	n -= toff
	if n <= bh {
		return
	}
	// Put e's end at the bottom, but never its first line above the top.
	start := n - p.entries[ei].n
	shift := min(n-bh, start)
	i, off, ok := p.down(ti, toff, shift)
	if !ok {
		i, off = ei, 0
	}
	a := p.posOf(i, off)
	p.anchor = &a
}

// ---- drawing ----

// window collects bh display lines from (i, off).
func (p *Pane) window(i, off, bh int) []dline {
	out := make([]dline, 0, bh)
	for ; i < len(p.entries) && len(out) < bh; i++ {
		if p.entries[i].n > 0 {
			out = p.entryLines(p.entries[i], off, off+bh-len(out), out)
		}
		off = 0
	}
	return out
}

// entryLines appends e's display lines [from, to) to dst, touching only those lines.
func (p *Pane) entryLines(e *entry, from, to int, dst []dline) []dline {
	n := 0
	if e.expandable {
		if from == 0 && to > 0 {
			dst = append(dst, dline{text: p.header(e), e: e, header: true})
		}
		n = 1
		if n >= to || !p.isOpen(e) {
			return dst
		}
	}
	first := !e.expandable && !e.cut
	shown := false
	for _, q := range e.paras {
		if len(q.lines) == 0 {
			continue
		}
		if shown {
			// The blank line between paragraphs.
			if n >= from {
				dst = append(dst, dline{e: e})
			}
			n++
			if n >= to {
				return dst
			}
		}
		shown = true
		k := len(q.lines)
		for j := max(from-n, 0); j < k && n+j < to; j++ {
			prefix := "  "
			if first && j == 0 {
				prefix = e.label
			}
			dst = append(dst, dline{prefix: prefix, text: q.lines[j].text, e: e})
		}
		first = false
		n += k
		if n >= to {
			return dst
		}
	}
	return dst
}

func (p *Pane) header(e *entry) string {
	mark := "▸ "
	if p.isOpen(e) {
		mark = "▾ "
	}
	if e.kind == kindThought {
		return fmt.Sprintf("%sthinking (%d words)", mark, e.words)
	}
	return e.label + mark + e.head
}

// view draws exactly h lines, none wider than w.
func (p *Pane) view() string {
	t := p.env.Theme
	w, h := p.w, p.h
	if h <= 0 {
		return ""
	}
	lines := make([]string, 0, h)
	p.search.refresh(p)
	if p.empty() {
		lines = append(lines, t.Dim.Render(ansi.Truncate(" no events yet", w, "")))
	} else {
		bh := p.bodyHeight()
		i, off := p.top(bh)
		if p.anchor != nil {
			// Keep the place actually shown, so the window does not jump once events arrive.
			a := p.posOf(i, off)
			p.anchor = &a
		}
		win := p.window(i, off, bh)
		if len(win) == 0 && bh > 0 {
			lines = append(lines, t.Dim.Render(ansi.Truncate(" no "+p.filter.name()+" yet · f shows the others", w, "…")))
		}
		for _, d := range win {
			s := ansi.Truncate(" "+d.prefix+d.text, w, "…")
			if d.header && d.e.id == p.sel {
				lines = append(lines, t.Selected.Render(term.PadRight(s, w)))
				continue
			}
			lines = append(lines, p.search.highlight(t, s, style(t, d), d.e.id))
		}
		if p.anchor != nil && bh < h {
			ei, eoff, _ := p.down(i, off, len(win))
			below := p.linesFrom(ei, eoff, 1<<30)
			note := fmt.Sprintf(" ↑ %d lines back · G follows the live tail", below)
			switch {
			case p.loading:
				note = " reading the journal… · G follows the live tail"
			case p.hasOlder() && p.atTop(i, off):
				note = " older events load as you scroll up · G follows the live tail"
			case p.detached:
				note = fmt.Sprintf(" ↑ %d lines and newer events back · G follows the live tail", below)
			case below == 0:
				note = " G follows the live tail"
			}
			for len(lines) < bh {
				lines = append(lines, "")
			}
			lines = append(lines, t.Warn.Render(ansi.Truncate(note, w, "…")))
		}
	}
	if p.search.shown() && h > 0 {
		for len(lines) < h-1 {
			lines = append(lines, "")
		}
		lines = append(lines[:h-1], p.search.bar(t, w, p.scopeNote()))
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// style is the style of display line d: the body of an open tool call or decision is dim.
func style(t term.Theme, d dline) lipgloss.Style {
	if d.e.expandable && d.e.kind != kindThought && !d.header {
		return t.Dim
	}
	return d.e.kind.Style(t)
}

// Style is the style of an event's text of kind k.
func (k Kind) Style(t term.Theme) lipgloss.Style {
	switch k {
	case kindAgent:
		return t.Agent
	case kindThought:
		return t.Thought
	case kindTool:
		return t.Tool
	case kindAllow:
		return t.Allow
	case kindDeny, kindError:
		return t.Deny
	case kindAsk:
		return t.Pending
	case kindState:
		return t.State
	case kindUsage:
		return t.Usage
	case kindSteer:
		return t.Steer
	}
	return t.Dim
}

package tui

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"reasonixctl/core"
)

// entryKind picks the style of an event-log entry.
type entryKind uint8

const (
	kindInfo entryKind = iota
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

// logEntry is one readable paragraph of a task's event stream, wrapped for the current width.
type logEntry struct {
	kind   entryKind
	text   string
	lines  []string
	toolID string // set for tool calls, so trimming can forget the id
}

const agentLabel = "agent  "

// maxLogLines bounds each task's rendered event buffer; the oldest paragraphs go first.
const maxLogLines = 5000

// eventLog turns a task's journal into wrapped paragraphs. Tool calls update their paragraph in
// place as their status changes, and consecutive usage reports replace each other, so the
// buffer grows with what a person would read, not with the event rate.
type eventLog struct {
	entries []*logEntry // live entries are entries[head:]
	head    int
	total   int // wrapped lines over all entries
	width   int
	lastSeq uint64
	tools   map[string]*logEntry
	usage   *logEntry // the trailing usage paragraph, replaced by the next usage report
}

func newEventLog() *eventLog {
	return &eventLog{width: 80, tools: map[string]*logEntry{}}
}

// add renders ev into the log; events at or below the last seen seq are duplicates and ignored.
func (l *eventLog) add(ev core.Event) {
	if ev.Seq != 0 && ev.Seq <= l.lastSeq {
		return
	}
	if ev.Seq != 0 {
		l.lastSeq = ev.Seq
	}
	switch ev.Type {
	case core.EventToolCall:
		var d core.ToolCallData
		_ = json.Unmarshal(ev.Data, &d)
		text := formatToolCall(d)
		if e, ok := l.tools[d.ToolCallID]; ok && d.ToolCallID != "" {
			if d.Title == "" && e.text != "" {
				// Updates often carry only the new status: keep the title already shown.
				text = toolTitle(e.text) + statusSuffix(d.Status)
			}
			l.replace(e, text)
			return
		}
		e := l.push(kindTool, text)
		if d.ToolCallID != "" {
			e.toolID = d.ToolCallID
			l.tools[d.ToolCallID] = e
		}
		return
	case core.EventUsage:
		var u core.Usage
		_ = json.Unmarshal(ev.Data, &u)
		text := "usage  " + formatUsage(&u)
		if l.usage != nil && l.last() == l.usage {
			l.replace(l.usage, text)
			return
		}
		l.usage = l.push(kindUsage, text)
		return
	}
	kind, text := formatEvent(ev)
	if text == "" {
		return
	}
	if last := l.last(); kind == kindAgent && last != nil && last.kind == kindAgent {
		// Consecutive agent messages read as one block of paragraphs under one label. Each stays
		// its own entry so a long monologue is neither re-wrapped whole nor kept past the bound.
		text = "  " + strings.TrimPrefix(text, agentLabel)
	}
	l.push(kind, text)
}

func (l *eventLog) push(kind entryKind, text string) *logEntry {
	e := &logEntry{kind: kind, text: text}
	e.lines = wrapEntry(text, l.width)
	l.entries = append(l.entries, e)
	l.total += len(e.lines)
	l.trim()
	return e
}

func (l *eventLog) replace(e *logEntry, text string) {
	l.total -= len(e.lines)
	e.text = text
	e.lines = wrapEntry(text, l.width)
	l.total += len(e.lines)
	l.trim()
}

func (l *eventLog) last() *logEntry {
	if len(l.entries) == l.head {
		return nil
	}
	return l.entries[len(l.entries)-1]
}

// trim drops the oldest paragraphs beyond the line bound. Dropping only advances head; the
// slice is compacted once half of it is dead, so trimming costs O(1) per event on average.
func (l *eventLog) trim() {
	for l.total > maxLogLines && l.head < len(l.entries)-1 {
		e := l.entries[l.head]
		l.total -= len(e.lines)
		if e.toolID != "" && l.tools[e.toolID] == e {
			delete(l.tools, e.toolID)
		}
		l.entries[l.head] = nil
		l.head++
	}
	if l.head > 64 && l.head*2 > len(l.entries) {
		l.entries = append([]*logEntry(nil), l.entries[l.head:]...)
		l.head = 0
	}
}

// setWidth re-wraps every paragraph when the detail pane changes width.
func (l *eventLog) setWidth(w int) {
	if w < 10 {
		w = 10
	}
	if w == l.width {
		return
	}
	l.width = w
	l.total = 0
	for _, e := range l.entries[l.head:] {
		e.lines = wrapEntry(e.text, w)
		l.total += len(e.lines)
	}
	l.trim()
}

// window returns the lines of a height-tall window whose bottom is `fromBottom` lines above the
// newest line, walking back from the end so that only visible paragraphs are touched.
func (l *eventLog) window(fromBottom, height int) ([]string, []entryKind) {
	if height <= 0 {
		return nil, nil
	}
	skip := fromBottom
	lines := make([]string, 0, height)
	kinds := make([]entryKind, 0, height)
	for i := len(l.entries) - 1; i >= l.head && len(lines) < height; i-- {
		e := l.entries[i]
		for j := len(e.lines) - 1; j >= 0 && len(lines) < height; j-- {
			if skip > 0 {
				skip--
				continue
			}
			lines = append(lines, e.lines[j])
			kinds = append(kinds, e.kind)
		}
	}
	for i, j := 0, len(lines)-1; i < j; i, j = i+1, j-1 {
		lines[i], lines[j] = lines[j], lines[i]
		kinds[i], kinds[j] = kinds[j], kinds[i]
	}
	return lines, kinds
}

// wrapEntry wraps text to width; every line after the entry's first is indented by two spaces
// so paragraphs read as one block.
func wrapEntry(text string, width int) []string {
	w := width - 2
	if w < 4 {
		w = 4
	}
	var out []string
	for _, para := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		for _, line := range strings.Split(ansi.Wrap(para, w, ""), "\n") {
			if len(out) > 0 {
				line = "  " + line
			}
			out = append(out, line)
		}
	}
	return out
}

func formatEvent(ev core.Event) (entryKind, string) {
	switch ev.Type {
	case core.EventAgentMessage:
		return kindAgent, agentLabel + textOf(ev.Data)
	case core.EventAgentThought:
		return kindThought, "think  " + textOf(ev.Data)
	case core.EventSteered:
		return kindSteer, "steer  " + textOf(ev.Data)
	case core.EventError:
		return kindError, "error  " + textOf(ev.Data)
	case core.EventTaskCreated:
		var d core.TaskCreatedData
		_ = json.Unmarshal(ev.Data, &d)
		return kindState, fmt.Sprintf("task   created in %s: %s", d.Repository, d.Objective)
	case core.EventStateChanged:
		var d core.StateChangedData
		_ = json.Unmarshal(ev.Data, &d)
		s := fmt.Sprintf("state  %s → %s", d.From, d.To)
		if d.Phase != "" {
			s += " (" + d.Phase + ")"
		}
		if d.Reason != "" {
			s += ": " + d.Reason
		}
		return kindState, s
	case core.EventPermissionDecided:
		var d core.PermissionData
		_ = json.Unmarshal(ev.Data, &d)
		return permissionKind(d.Decision), formatPermission(d)
	case core.EventInteractionWaiting:
		var ia core.Interaction
		_ = json.Unmarshal(ev.Data, &ia)
		return kindAsk, "ask    " + ia.Kind + " " + ia.ID + " waits for you: " + describeRequest(ia.Request).summary()
	case core.EventInteractionResolved:
		var ia core.Interaction
		_ = json.Unmarshal(ev.Data, &ia)
		return kindAsk, fmt.Sprintf("ask    %s %s %s %s", ia.Kind, ia.ID, ia.Status, compactJSON(ia.Response))
	case core.EventPlan:
		var d core.PlanData
		_ = json.Unmarshal(ev.Data, &d)
		var b strings.Builder
		b.WriteString("plan")
		for _, e := range d.Entries {
			mark := "[ ]"
			switch e.Status {
			case "completed":
				mark = "[x]"
			case "in_progress":
				mark = "[>]"
			}
			b.WriteString("\n" + mark + " " + e.Content)
		}
		return kindInfo, b.String()
	case core.EventReviewReady:
		var d core.ReviewReadyData
		_ = json.Unmarshal(ev.Data, &d)
		return kindState, fmt.Sprintf("review ready: revision %d, tree %s, %d file(s) changed", d.ReviewRevision, short(d.ReviewTreeHash, 12), len(d.ChangedFiles))
	case core.EventVerification:
		var v core.VerificationResult
		_ = json.Unmarshal(ev.Data, &v)
		return verificationKind(v), "verify " + formatVerification(v)
	case core.EventCommitted:
		var d core.CommittedData
		_ = json.Unmarshal(ev.Data, &d)
		return kindAllow, fmt.Sprintf("commit %s on %s — %s", d.CommitHash, d.Branch, d.IntegrationCommand)
	case core.EventWorkerStatus:
		var d core.WorkerStatusData
		_ = json.Unmarshal(ev.Data, &d)
		return kindInfo, "worker " + strings.TrimSpace(d.State+" "+d.Phase)
	}
	return kindInfo, strings.TrimSpace(ev.Type + " " + string(ev.Data))
}

func permissionKind(decision string) entryKind {
	switch decision {
	case core.DecisionAllow:
		return kindAllow
	case core.DecisionDeny:
		return kindDeny
	}
	return kindAsk
}

func formatPermission(d core.PermissionData) string {
	by := d.By
	if by == "" {
		by = "policy"
	}
	what := d.Title
	if len(d.Argv) > 0 {
		what = strings.Join(d.Argv, " ")
	}
	if what == "" {
		what = strings.Join(d.Paths, " ")
	}
	s := fmt.Sprintf("%-6s %s %s: %s", by, d.Decision, d.Kind, what)
	if d.Code != "" || d.Reason != "" {
		s += " — " + strings.TrimSpace(d.Code+" "+d.Reason)
	}
	if d.Hint != "" {
		s += " (hint: " + d.Hint + ")"
	}
	return s
}

func formatToolCall(d core.ToolCallData) string {
	title := d.Title
	if title == "" {
		title = d.Kind
	}
	if title == "" {
		title = d.ToolCallID
	}
	return "tool   " + title + statusSuffix(d.Status)
}

func statusSuffix(status string) string {
	if status == "" {
		return ""
	}
	return " · " + status
}

// toolTitle strips the status suffix from a rendered tool line.
func toolTitle(text string) string {
	if i := strings.LastIndex(text, " · "); i >= 0 {
		return text[:i]
	}
	return text
}

func verificationKind(v core.VerificationResult) entryKind {
	if v.Passed {
		return kindAllow
	}
	return kindDeny
}

func formatVerification(v core.VerificationResult) string {
	res := "FAILED"
	if v.Passed {
		res = "passed"
	}
	if v.TimedOut {
		res = "TIMED OUT"
	}
	exit := "-"
	if v.ExitCode != nil {
		exit = fmt.Sprint(*v.ExitCode)
	}
	return fmt.Sprintf("%s %s: %s (exit %s)", res, v.ID, strings.Join(v.Argv, " "), exit)
}

func formatUsage(u *core.Usage) string {
	if u == nil {
		return "-"
	}
	s := fmt.Sprintf("prompt %s · completion %s", humanInt(u.PromptTokens), humanInt(u.CompletionTokens))
	if u.ReasoningTokens > 0 {
		s += " · reasoning " + humanInt(u.ReasoningTokens)
	}
	if u.CacheHitRatio != nil {
		s += fmt.Sprintf(" · cache %.0f%%", *u.CacheHitRatio*100)
	}
	if u.EstimatedCost != nil {
		s += " · " + formatCost(*u.EstimatedCost, u.Currency)
	}
	return s
}

func textOf(data json.RawMessage) string {
	var d core.TextData
	if err := json.Unmarshal(data, &d); err != nil {
		return string(data)
	}
	return strings.TrimSpace(d.Text)
}

func compactJSON(v any) string {
	if v == nil {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

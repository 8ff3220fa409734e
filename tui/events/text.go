package events

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"reasonixctl/core"
	"reasonixctl/core/safetext"
	"reasonixctl/tui/term"
	"reasonixctl/tui/words"
)

// maxBlankRun bounds a run of blanks a paragraph keeps: more spaces than the widest pane are
// never shown.
const maxBlankRun = 320

// wline is one wrapped line of a paragraph.
type wline struct {
	text  string
	start int  // byte offset in the paragraph's stream (text begins at base) where the line starts
	hard  bool // the line follows a newline of the text, so its leading spaces are indentation
}

// para is one paragraph of streamed text with its wrapped lines. Text only ever grows at the
// end (or loses its oldest lines to the buffer bound), so appending re-wraps just the last line:
// greedy wrapping never moves an earlier break when words are added after it.
type para struct {
	text   []byte
	base   int // stream offset of text[0]: dropping old lines needs no rebasing
	lines  []wline
	blanks int // blanks at the end of text
}

// appendText adds s to the paragraph and re-wraps from its last line. first is the width of
// the paragraph's first line, rest of every other; both are at least 1.
func (p *para) appendText(s string, first, rest int) {
	if len(p.text) == 0 {
		s = strings.TrimLeft(s, " \n")
	}
	if s == "" {
		return
	}
	// A run of blanks shows at most a line's width of spaces, or one empty line per newline
	// only once text follows it: runs are cut at maxBlankRun so that a stream of blanks costs
	// neither memory nor re-wrapping time.
	run := p.blanks
	for i := 0; i < len(s); i++ {
		if isBlank(s[i]) {
			if run >= maxBlankRun {
				continue
			}
			run++
		} else {
			run = 0
		}
		p.text = append(p.text, s[i])
	}
	p.blanks = run
	k := len(p.lines) - 1
	if k < 0 {
		p.lines = wrapText(p.lines[:0], p.text, p.base, 0, true, first, rest)
		return
	}
	from, hard := p.lines[k].start-p.base, p.lines[k].hard
	p.lines = wrapText(p.lines[:k], p.text, p.base, from, hard, first, rest)
}

func isBlank(c byte) bool { return c == ' ' || c == '\n' }

// rewrap wraps the whole paragraph again, after a width change.
func (p *para) rewrap(first, rest int) {
	p.lines = wrapText(p.lines[:0], p.text, p.base, 0, true, first, rest)
}

// dropLines forgets the paragraph's first n lines and the text they came from.
func (p *para) dropLines(n int) {
	if n >= len(p.lines) {
		p.text, p.lines, p.blanks = nil, nil, 0
		return
	}
	p.lines = p.lines[n:]
	p.lines[0].hard = true
	start := p.lines[0].start
	p.text = p.text[start-p.base:]
	p.base = start
}

// wrapText appends to dst the lines of text[from:] (text starts at stream offset base) wrapped greedily at word boundaries: the
// first line of the paragraph (when dst is empty) is at most first columns wide, the others at
// most rest. A word wider than a line is broken between runes. Spaces at a wrap are dropped,
// as are trailing spaces and newlines (they show once text follows them); spaces after a
// newline are kept as indentation. text holds no control characters but newlines.
func wrapText(dst []wline, text []byte, base, from int, hard bool, first, rest int) []wline {
	s := string(text[from:])
	first, rest = max(first, 1), max(rest, 1)
	limit := func() int {
		if len(dst) == 0 {
			return first
		}
		return rest
	}
	var b strings.Builder
	lineStart, lineW := -1, 0
	lineHard := hard
	breaks, spaces, spaceStart := 0, 0, 0
	emit := func(start int) {
		if lineStart < 0 {
			lineStart = start
		}
		dst = append(dst, wline{text: b.String(), start: base + from + lineStart, hard: lineHard})
		b.Reset()
		lineStart, lineW = -1, 0
	}
	for i := 0; i < len(s); {
		switch s[i] {
		case '\n':
			breaks++
			spaces = 0
			i++
			continue
		case ' ':
			if spaces == 0 {
				spaceStart = i
			}
			spaces++
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] != ' ' && s[j] != '\n' {
			j++
		}
		word := s[i:j]
		sep := spaces
		if breaks > 0 {
			if lineStart >= 0 {
				emit(i)
			}
			for k := 1; k < breaks; k++ {
				emit(i)
			}
			lineHard = true
			breaks = 0
		}
		lim := limit()
		ww := term.TextWidth(word)
		if lineStart >= 0 && lineW+sep+ww > lim {
			emit(i)
			lineHard = false
			lim = limit()
		}
		if lineStart < 0 {
			if !lineHard {
				sep = 0
			}
			sep = min(sep, lim-1)
			if sep > 0 {
				lineStart = spaceStart
			} else {
				lineStart = i
			}
		}
		for range sep {
			b.WriteByte(' ')
		}
		lineW += sep
		if lineW+ww <= lim {
			b.WriteString(word)
			lineW += ww
		} else {
			for k := 0; k < len(word); {
				_, size := utf8.DecodeRuneInString(word[k:])
				rs := word[k : k+size]
				rw := term.TextWidth(rs)
				if lineW > 0 && lineW+rw > lim {
					emit(i + k)
					lineHard = false
					lim = limit()
					lineStart = i + k
				}
				b.WriteString(rs)
				lineW += rw
				k += size
			}
		}
		spaces = 0
		i = j
	}
	if lineStart >= 0 {
		emit(0)
	}
	return dst
}

// ---- one-line formats ----

// resolvedText is the line of an interaction_resolved event; grant says the allow also granted
// the command for the repository, which the response itself does not record.
func resolvedText(ia core.Interaction, grant bool) (Kind, string) {
	if ia.Status != core.InteractionResolved || ia.Response == nil {
		return kindAsk, fmt.Sprintf("ask    %s %s %s", ia.Kind, ia.ID, ia.Status)
	}
	by := ""
	if ia.Response.By != "" {
		by = " (by " + ia.Response.By + ")"
		if ia.Response.Client != "" {
			by = " (by " + ia.Response.By + " through " + ia.Response.Client + ")"
		}
	}
	r := ia.Response
	return kindAsk, fmt.Sprintf("ask    %s %s answered %s%s", ia.Kind, ia.ID, words.AnswerText(ia, r.Decision, r.OptionID, r.Answer, grant), by)
}

const agentLabel = "agent  "

func formatEvent(ev core.Event) (Kind, string) {
	switch ev.Type {
	case core.EventSteered:
		return kindSteer, "steer  " + strings.TrimSpace(textOf(ev))
	case core.EventError:
		return kindError, "error  " + strings.TrimSpace(textOf(ev))
	case core.EventTaskCreated:
		d, _ := core.DataOf[core.TaskCreatedData](ev)
		return kindState, fmt.Sprintf("task   created in %s: %s", d.Repository, d.Objective)
	case core.EventStateChanged:
		d, _ := core.DataOf[core.StateChangedData](ev)
		s := fmt.Sprintf("state  %s → %s", d.From, d.To)
		switch {
		case d.From == d.To && d.Phase != "":
			s = fmt.Sprintf("state  %s · phase %s", d.To, d.Phase) // only the phase moved
		case d.Phase != "":
			s += " (" + d.Phase + ")"
		}
		if d.Reason != "" {
			s += ": " + d.Reason
		}
		return kindState, s
	case core.EventInteractionWaiting:
		d, _ := core.DataOf[core.InteractionWaitingData](ev)
		ia := core.Interaction(d)
		return kindAsk, "ask    " + ia.Kind + " " + ia.ID + " waits for you: " + words.DescribeRequest(ia.Request).Summary()
	case core.EventInteractionResolved:
		d, _ := core.DataOf[core.InteractionResolvedData](ev)
		return resolvedText(core.Interaction(d), d.Response != nil && d.Response.Grant != "")
	case core.EventPlan:
		d, _ := core.DataOf[core.PlanData](ev)
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
		d, _ := core.DataOf[core.ReviewReadyData](ev)
		return kindState, fmt.Sprintf("review ready: revision %d, tree %s, %d file(s) changed", d.ReviewRevision, term.Short(d.ReviewTreeHash, 12), len(d.ChangedFiles))
	case core.EventVerification:
		v, _ := core.DataOf[core.VerificationResult](ev)
		return verificationKind(v), "verify " + words.Verification(v)
	case core.EventCommitted:
		d, _ := core.DataOf[core.CommittedData](ev)
		return kindAllow, fmt.Sprintf("commit %s on %s — %s", d.CommitHash, d.Branch, d.IntegrationCommand)
	case core.EventWorkerStatus:
		d, _ := core.DataOf[core.WorkerStatusData](ev)
		return kindInfo, "worker " + strings.TrimSpace(d.State+" "+d.Phase)
	case core.EventUsage:
		u, _ := core.DataOf[core.Usage](ev)
		return kindUsage, "usage  " + words.Usage(&u)
	case core.EventReviewComment:
		c, _ := core.DataOf[core.ReviewComment](ev)
		verb := "comment"
		switch c.Status {
		case core.CommentDeleted:
			verb = "deleted"
		case core.CommentOutdated:
			verb = "outdated"
		}
		body, _, _ := strings.Cut(c.Body, "\n")
		return kindSteer, fmt.Sprintf("review %s %s on %s:%d: %s", verb, c.ID, c.Path, c.Line, body)
	case core.EventReviewCommentsSent:
		d, _ := core.DataOf[core.CommentsSentData](ev)
		return kindSteer, fmt.Sprintf("review sent %d comment(s) as repair round %d: %s", len(d.CommentIDs), d.RepairRound, strings.Join(d.CommentIDs, ", "))
	case core.EventReviewSummary:
		d, _ := core.DataOf[core.ReviewSummaryData](ev)
		return kindState, fmt.Sprintf("review summary of revision %d: %s", d.ReviewRevision, d.Summary)
	}
	data, _ := ev.Decode()
	switch d := data.(type) {
	case *core.AppliedData:
		return kindAllow, fmt.Sprintf("apply  %s cherry-picked onto %s of %s: %s → %s (nothing pushed)",
			term.Short(d.Commit, 12), d.Branch, d.Checkout, term.Short(d.Before, 12), term.Short(d.Applied, 12))
	case *core.RebasedData:
		s := fmt.Sprintf("rebase review %d moved from %s onto %s", d.ReviewRevision, term.Short(d.From, 12), term.Short(d.To, 12))
		if len(d.Conflicts) > 0 {
			s += fmt.Sprintf("; %d file(s) with conflict markers for the worker: %s", len(d.Conflicts), strings.Join(d.Conflicts, ", "))
		}
		return kindState, s
	case *core.ContractAmendedData:
		var parts []string
		if len(d.Dropped) > 0 {
			parts = append(parts, "dropped "+strings.Join(d.Dropped, ", "))
		}
		if len(d.Added) > 0 {
			parts = append(parts, "added "+strings.Join(d.Added, ", "))
		}
		if len(d.ToReview) > 0 {
			parts = append(parts, "now approved at review: "+strings.Join(d.ToReview, ", "))
		}
		return kindState, fmt.Sprintf("checks revision %d: %s", d.Revision, strings.Join(parts, "; "))
	}
	return kindInfo, strings.TrimSpace(ev.Type + " " + string(ev.Data))
}

func permissionKind(decision string) Kind {
	switch decision {
	case core.DecisionAllow:
		return kindAllow
	case core.DecisionDeny:
		return kindDeny
	}
	return kindAsk
}

// permissionHeader is the one line a decision shows folded: who decided what, on what.
func permissionHeader(d core.PermissionData) (label, text string) {
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
	text = fmt.Sprintf("%s %s: %s", d.Decision, d.Kind, what)
	why := d.Code
	if why == "" {
		why = d.Reason
	}
	if why != "" {
		text += " — " + why
	}
	return fmt.Sprintf("%-6s ", by), text
}

// permissionDetail is what a decision shows expanded.
func permissionDetail(d core.PermissionData) []string {
	var out []string
	if d.Code != "" || d.Reason != "" {
		out = append(out, "reason "+strings.TrimSpace(d.Code+": "+d.Reason))
	}
	if d.Hint != "" {
		out = append(out, "hint   "+d.Hint)
	}
	if len(d.Argv) > 0 {
		out = append(out, "argv   "+words.CompactJSON(d.Argv))
	}
	if len(d.Paths) > 0 {
		out = append(out, "paths  "+strings.Join(d.Paths, " "))
	}
	if d.Cwd != "" {
		out = append(out, "cwd    "+d.Cwd)
	}
	if d.ToolCallID != "" {
		out = append(out, "call   "+d.ToolCallID)
	}
	if len(out) == 0 {
		out = append(out, "no reason given")
	}
	return out
}

// toolMark is the status mark of a tool call line.
func toolMark(status string) string {
	switch status {
	case "pending":
		return "○ pending"
	case "in_progress":
		return "◐ in_progress"
	case "completed":
		return "✓ completed"
	case "failed":
		return "✗ failed"
	case "":
		return ""
	}
	return "• " + status
}

func toolHeader(d *core.ToolCallData) string {
	title := d.Title
	if title == "" {
		title = d.Kind
	}
	if title == "" {
		title = d.ToolCallID
	}
	if arg := toolArg(d.Input); arg != "" && !strings.Contains(title, arg) {
		// The worker often titles a call by its tool alone ("bash", "read_file") until it ends:
		// the command or path says what it does.
		title += " " + arg
	}
	if m := toolMark(d.Status); m != "" {
		title += " · " + m
	}
	return title
}

// toolArgKeys are the input fields that say what a tool call does, most telling first.
var toolArgKeys = []string{"command", "path", "file_path", "filePath", "pattern", "query", "url"}

// maxToolArg bounds the argument shown in a tool call's line.
const maxToolArg = 80

// toolArg is the first line of the telling field of a tool call's input (kept as compact JSON
// text), or "".
func toolArg(input any) string {
	text, ok := input.(string)
	if !ok || text == "" || text[0] != '{' {
		return ""
	}
	var fields map[string]any
	if json.Unmarshal([]byte(text), &fields) != nil {
		return ""
	}
	for _, k := range toolArgKeys {
		if v, ok := fields[k].(string); ok {
			line, _, _ := strings.Cut(strings.TrimSpace(v), "\n")
			if line = safetext.Line(line); line != "" {
				return ansi.Truncate(line, maxToolArg, "…")
			}
		}
	}
	return ""
}

// toolDetail is what a tool call shows expanded; the pane keeps its input as capped JSON text.
func toolDetail(d *core.ToolCallData) []string {
	var out []string
	if d.Kind != "" || d.ToolCallID != "" {
		out = append(out, strings.TrimSpace("call   "+d.Kind+" "+d.ToolCallID))
	}
	if in, ok := d.Input.(string); ok && in != "" {
		out = append(out, "input  "+in)
	}
	if d.Output != "" {
		out = append(out, "output\n"+d.Output)
	} else {
		out = append(out, "output (none yet)")
	}
	return out
}

func verificationKind(v core.VerificationResult) Kind {
	if v.Passed {
		return kindAllow
	}
	return kindDeny
}

// textOf is the raw text of an event that carries only text (no trimming: streamed text is
// concatenated), or the data itself when it is not one.
func textOf(ev core.Event) string {
	v, _ := ev.Decode()
	switch d := v.(type) {
	case *core.AgentMessageData:
		return d.Text
	case *core.AgentThoughtData:
		return d.Text
	case *core.SteeredData:
		return d.Text
	case *core.ErrorData:
		return d.Text
	}
	return string(ev.Data)
}

// ---- one event, one line ----

// OneLine is one event as one line, as the replay lists the journal; titles name tool calls by
// id (ToolTitles), since a call's later updates often carry only its status.
func OneLine(ev core.Event, titles map[string]string) (Kind, string) {
	switch ev.Type {
	case core.EventAgentMessage:
		return kindAgent, agentLabel + safetext.Line(textOf(ev))
	case core.EventAgentThought:
		return kindThought, "think  " + safetext.Line(textOf(ev))
	case core.EventToolCall:
		d, _ := core.DataOf[core.ToolCallData](ev)
		k := kindTool
		if d.Status == "failed" {
			k = kindDeny
		}
		if d.Title == "" {
			d.Title = titles[d.ToolCallID]
		}
		return k, "tool   " + safetext.Line(toolHeader(&d))
	case core.EventPermissionDecided:
		d, _ := core.DataOf[core.PermissionData](ev)
		label, head := permissionHeader(d)
		return permissionKind(d.Decision), safetext.Line(label + head)
	}
	kind, text := formatEvent(ev)
	return kind, safetext.Line(text)
}

// ToolTitles are the first title each tool call of evs gave itself, by call id, capped as a
// line's header is.
func ToolTitles(evs []core.Event) map[string]string {
	titles := map[string]string{}
	for _, ev := range evs {
		if ev.Type != core.EventToolCall {
			continue
		}
		if d, ok := core.DataOf[core.ToolCallData](ev); ok && d.Title != "" && titles[d.ToolCallID] == "" {
			titles[d.ToolCallID] = term.CapText(d.Title, maxHeadBytes)
		}
	}
	return titles
}

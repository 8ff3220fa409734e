package dialog

import (
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/core/safetext"
	"reasonixctl/tui/bind"
	"reasonixctl/tui/intent"
	"reasonixctl/tui/term"
	"reasonixctl/tui/words"
)

// Risk is one thing the review found in the diff that a plain reading may miss, as the form
// lists it: the risk, and what it is and where in the words the diff view uses for it.
type Risk struct {
	core.SourceRisk
	Lines string
}

// Finalize is the finalize form: the review summary, the review criteria to tick, the commit
// message, and what must be acknowledged or excused first. It holds values only: the files
// not marked reviewed when it opened, and the cherry-pick preview the root sets again as
// fresh ones arrive (SetPreview).
type Finalize struct {
	taskID   string
	revision int
	tree     string
	repo     string
	criteria []core.Criterion // the review criteria, which the supervisor must approve
	ticked   []bool
	summary  textinput.Model
	focus    int // 0 summary, 1..n criteria, n+1 commit message, n+2 the excuse's reason
	err      string
	// message is the commit message, prefilled with the one the engine would use.
	message        textinput.Model
	defaultMessage string
	// unreviewed are the files not marked reviewed; the first submit with some asks first.
	unreviewed []string
	asked      bool
	preview    words.Preview
	// risks are what the review found hidden or disguised in the diff; finalize needs them
	// acknowledged (k.AckRisks).
	risks  []Risk
	acked  bool
	excuse excuseState // pre-existing failures of the last attempt, excused with ctrl+x
}

// NewFinalize is the finalize form of the task d describes. risks are d's source risks as the
// root words them; unreviewed, the files of the diff not marked reviewed.
func NewFinalize(d core.TaskDetail, risks []Risk, unreviewed []string) *Finalize {
	f := &Finalize{taskID: d.View.TaskID, revision: d.View.ReviewRevision, tree: d.View.ReviewTreeHash, repo: d.Repository,
		risks: risks}
	for _, c := range d.Criteria {
		if c.Evidence == "review" {
			f.criteria = append(f.criteria, c)
		}
	}
	sort.Slice(f.criteria, func(i, j int) bool { return f.criteria[i].ID < f.criteria[j].ID })
	f.ticked = make([]bool, len(f.criteria))
	f.summary = term.NewInput("what you reviewed and why it is right", "", core.MaxReviewSummaryLen)
	f.summary.Focus()
	f.defaultMessage = core.DefaultCommitMessage(d.View.TaskID, d.Objective)
	f.message = term.NewInput("commit message", f.defaultMessage, core.MaxCommitMessageLen)
	f.excuse = newExcuseState(d.Verification)
	f.unreviewed = append([]string(nil), unreviewed...)
	sort.Strings(f.unreviewed)
	return f
}

// TaskID is the task the form finalizes.
func (f *Finalize) TaskID() string { return f.taskID }

// Summary is the review summary as typed.
func (f *Finalize) Summary() string { return f.summary.Value() }

// SetPreview gives the form the task's cherry-pick preview as it is now.
func (f *Finalize) SetPreview(p words.Preview) { f.preview = p }

func (f *Finalize) setFocus(i int) {
	n := len(f.criteria) + 2 + f.excuse.slots()
	f.focus = (i + n) % n
	f.summary.Blur()
	f.message.Blur()
	f.excuse.reason.Blur()
	switch f.focus {
	case 0:
		f.summary.Focus()
	case len(f.criteria) + 1:
		f.message.Focus()
	case len(f.criteria) + 2:
		f.excuse.reason.Focus()
	}
}

func (f *Finalize) onCriterion() bool { return f.focus > 0 && f.focus <= len(f.criteria) }

func (f *Finalize) keys(k bind.KeyMap) keys {
	return keys{
		{Key: k.FocusNext, Short: k.FocusNext.Help().Desc, Run: func(tea.KeyMsg) intent.Result { f.setFocus(f.focus + 1); return intent.Result{} }},
		{Key: k.FocusPrev, Run: func(tea.KeyMsg) intent.Result { f.setFocus(f.focus - 1); return intent.Result{} }},
		{Key: k.Toggle, Short: "tick", Run: func(msg tea.KeyMsg) intent.Result {
			if !f.onCriterion() {
				return f.typed(msg) // a space in the text
			}
			f.ticked[f.focus-1] = !f.ticked[f.focus-1]
			return intent.Result{}
		}},
		{Key: k.Submit, Short: k.Submit.Help().Desc, Run: func(tea.KeyMsg) intent.Result { return f.submit(k) }},
		{Key: k.Back, Short: "cancel", Run: closed},
		{Key: k.AckRisks, Short: "acknowledge risks", Run: func(tea.KeyMsg) intent.Result { f.acked = !f.acked; return intent.Result{} },
			WhyNot: func() string {
				if len(f.risks) == 0 {
					return "nothing to acknowledge: the review found nothing hidden or disguised in the diff"
				}
				return ""
			}},
		{Key: k.Excuse, Short: k.Excuse.Help().Desc, Run: func(tea.KeyMsg) intent.Result {
			f.excuse.on = !f.excuse.on
			f.setFocus(len(f.criteria) + 2) // the reason, or back to the summary
			return intent.Result{}
		}, WhyNot: func() string {
			if len(f.excuse.ids) == 0 {
				return "nothing to excuse: no check of the last attempt failed the same way before the change"
			}
			return ""
		}},
	}
}

// typed gives a key to the focused text field, if one has the focus.
func (f *Finalize) typed(msg tea.KeyMsg) intent.Result {
	switch f.focus {
	case 0:
		f.summary, _ = f.summary.Update(msg)
	case len(f.criteria) + 1:
		f.message, _ = f.message.Update(msg)
	case len(f.criteria) + 2:
		f.excuse.reason, _ = f.excuse.reason.Update(msg)
	}
	return intent.Result{}
}

func (f *Finalize) Update(msg tea.KeyMsg, k bind.KeyMap) intent.Result {
	res, why, found := f.keys(k).Dispatch(msg)
	switch {
	case !found:
		return f.typed(msg)
	case why != "":
		f.err = why
	}
	return res
}

func (f *Finalize) submit(k bind.KeyMap) intent.Result {
	summary := strings.TrimSpace(f.summary.Value())
	if core.ReviewSummaryIssues(summary) != nil {
		f.err = "write a review summary first"
		return intent.Result{}
	}
	approved := []string{}
	for i, c := range f.criteria {
		if f.ticked[i] {
			approved = append(approved, c.ID)
		}
	}
	if left := len(f.criteria) - len(approved); left > 0 {
		f.err = fmt.Sprintf("tick every review criterion you checked (%d left); if one does not hold, steer a repair instead", left)
		return intent.Result{}
	}
	if len(f.risks) > 0 && !f.acked {
		f.err = fmt.Sprintf("the change holds what a plain reading may miss (above: hidden characters, look-alikes, binary files): read them in the diff, then %s acknowledges them", k.AckRisks.Help().Key)
		return intent.Result{}
	}
	message := strings.TrimSpace(f.message.Value())
	if message == "" {
		f.err = "the commit message is empty"
		return intent.Result{}
	}
	if len(f.unreviewed) > 0 && !f.asked {
		f.asked = true
		f.err = fmt.Sprintf("%d file(s) not marked reviewed: %s. Submit again to finalize anyway, or esc and review them (v marks a file).",
			len(f.unreviewed), strings.Join(f.unreviewed, ", "))
		return intent.Result{}
	}
	excused, why := f.excuse.checks()
	if why != "" {
		f.err = why
		return intent.Result{}
	}
	rev := f.revision
	req := core.Finalize{
		TaskID: f.taskID, ReviewSummary: summary, ApprovedReviewCriteria: approved,
		ExpectedReviewRevision: &rev, ExpectedReviewTreeHash: f.tree,
		Authority: core.Authority{Cwd: f.repo, Writable: true}, ExcusedChecks: excused,
	}
	if message != f.defaultMessage {
		req.CommitMessage = message
	}
	if len(f.risks) > 0 {
		req.AcknowledgedRisks = riskIDs(f.risks)
	}
	return intent.Result{Close: true, Control: req}
}

// riskIDs are what finalize's acknowledged_risks lists.
func riskIDs(rs []Risk) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

func (f *Finalize) View(t term.Theme, k bind.KeyMap, width int) (string, string) {
	var b strings.Builder
	b.WriteString(t.Title.Render("Finalize "+safetext.Line(f.taskID)) + "\n")
	b.WriteString(t.Dim.Render(fmt.Sprintf("review revision %d · tree %s", f.revision, f.tree)) + "\n\n")
	f.summary.Width = max(width-12, 10)
	mark := func(i int) string {
		if f.focus == i {
			return "› "
		}
		return "  "
	}
	b.WriteString(mark(0) + "summary " + f.summary.View() + "\n")
	if len(f.criteria) == 0 {
		b.WriteString("\n" + t.Dim.Render("No review criteria: automated evidence decides.") + "\n")
	} else {
		b.WriteString("\n" + t.Dim.Render("Review criteria (all must hold):") + "\n")
	}
	for i, c := range f.criteria {
		box := "[ ]"
		if f.ticked[i] {
			box = "[x]"
		}
		b.WriteString(mark(i+1) + box + " " + safetext.Line(c.ID) + ": " + term.WrapIndent(safetext.Sanitize(c.Requirement), width, len(c.ID)+8) + "\n")
	}
	f.message.Width = max(width-12, 10)
	b.WriteString("\n" + mark(len(f.criteria)+1) + "commit  " + f.message.View() + "\n")
	if len(f.risks) > 0 {
		box := "[ ]"
		if f.acked {
			box = "[x]"
		}
		b.WriteString("\n" + t.Warn.Render(term.WrapIndent(fmt.Sprintf("⚠ Risks: the change holds what a plain reading may miss (hidden characters shown as ⟨U+…⟩ markers, look-alikes, binary files). %s %s: I read these lines and the change is still right.",
			box, k.AckRisks.Help().Key), width, 2)) + "\n")
		for _, r := range f.risks {
			line := safetext.Line(r.Text) // the files beyond those listed
			if r.Path != "" {
				line = safetext.Line(r.Path) + ": " + r.Lines
			}
			b.WriteString(t.Warn.Render(term.WrapIndent("  "+line, width, 4)) + "\n")
		}
	}
	b.WriteString(f.excuse.view(t, width, f.focus == len(f.criteria)+2))
	if len(f.unreviewed) > 0 {
		b.WriteString("\n" + t.Warn.Render(term.WrapIndent(safetext.Sanitize(fmt.Sprintf("Not marked reviewed (%d): %s", len(f.unreviewed), strings.Join(f.unreviewed, ", "))), width, 2)) + "\n")
	}
	if line := f.preview.Line(); line != "" {
		st := t.Good
		if f.preview.Of == nil || !f.preview.Of.Clean {
			st = t.Warn
		}
		b.WriteString("\n" + st.Render(term.WrapIndent(safetext.Sanitize(line), width, 2)) + "\n")
	}
	foot := term.KeyLines(t, width, f.keys(k).Footer()...)
	if f.err != "" {
		// Why enter did not finalize goes with the keys, which always stay in view: at the end of
		// a body taller than the screen it was scrolled out of sight, and the summary field,
		// which has the keys then, leaves pgdn to the text.
		foot = t.Error.Render(term.WrapIndent(safetext.Sanitize(f.err), width, 0)) + "\n\n" + foot
	}
	return strings.TrimRight(b.String(), "\n"), foot
}

func (f *Finalize) Capturing() bool {
	return f.focus == 0 || f.focus == len(f.criteria)+1 || f.focus == len(f.criteria)+2
}

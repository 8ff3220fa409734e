package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/tui/bind"
	"reasonixctl/tui/intent"
	"reasonixctl/tui/review"
	"reasonixctl/tui/term"
	"reasonixctl/tui/words"
)

// The root's side of the review tab (tui/review): where it stands, what it asks, the dialogs it
// opens and what the finalize form reads of it.

// diffTab is the review tab (tui/review), placed where the selected task's detail is: the pane
// with the keys while the Diff tab is on screen, and the root's side of the review for what
// concerns it whatever is on screen. Its copy key (y) copies the file's path; where there is no
// diff, y is the dashboard's (actions.go).
type diffTab struct{ m *Model }

// capturing: while the search line takes text, every key is text.
func (p diffTab) capturing() bool { return p.placed().Capturing() }

func (p diffTab) key(msg tea.KeyMsg) (tea.Cmd, bool) {
	rv, cmd, res := p.placed().Update(msg)
	p.m.review = rv
	if res.Pass {
		return nil, false
	}
	return p.carry(cmd, res), true
}

func (p diffTab) view(w, h int) string { return p.placed().View(w, h) }

// placed is the review placed where the selected task's detail is drawn.
func (p diffTab) placed() review.Review {
	m := p.m
	l := m.layout()
	pl := review.Place{Screen: m.width, Width: l.detailWidth(), Height: l.detailHeight()}
	if tv := m.list.selectedTask(); tv != nil {
		pl.Task = *tv
	}
	return m.review.In(pl)
}

// send hands msg to the review and carries out what it asks.
func (p diffTab) send(msg tea.Msg) tea.Cmd {
	rv, cmd, res := p.placed().Update(msg)
	p.m.review = rv
	return p.carry(cmd, res)
}

// carry carries out what the review asked, after its command.
func (p diffTab) carry(cmd tea.Cmd, res review.Result) tea.Cmd {
	m := p.m
	if res.View != nil {
		m.list.replace(*res.View)
	}
	if s := res.Status; s != nil {
		m.setStatus(s.Text, s.Err, s.TaskID)
	}
	if res.Open != nil {
		m.push(res.Open)
	}
	if f := res.Failed; f != nil {
		m.push(m.attach.errorNotice(f.Title, f.Err))
	}
	cmds := []tea.Cmd{cmd}
	if res.Do != nil {
		cmds = append(cmds, m.perform(res.Do))
	}
	if res.ReloadList {
		cmds = append(cmds, m.cmds.refreshList(&m.list))
	}
	if res.Reload != "" {
		cmds = append(cmds, m.info.fetchDetail(res.Reload))
	}
	return tea.Batch(cmds...)
}

// fileRisks says what the review found in each file of a task's diff, by path, in the words the
// finalize form uses (risks.go).
func fileRisks(ti *taskInfo) map[string]string {
	if ti.detail == nil || len(ti.detail.SourceRisks) == 0 {
		return nil
	}
	out := map[string]string{}
	for _, r := range ti.detail.SourceRisks {
		out[r.Path] = ti.fileRisk(r.Path)
	}
	return out
}

// reviewDialog is one of the review tab's dialogs on the stack: a comment, or sending the
// comments.
type reviewDialog struct{ review.Dialog }

func (d *reviewDialog) capturing() bool { return d.Capturing() }

func (d *reviewDialog) update(msg tea.KeyMsg, k bind.KeyMap) intent.Result { return d.Update(msg, k) }

func (d *reviewDialog) view(t term.Theme, k bind.KeyMap, width int) (string, string) {
	return d.View(t, k, width)
}

// taskReview is what the finalize form (dialogs.go) reads of its task's review: the
// cherry-pick preview, renewed by diffTab.carry while the form is open.
type taskReview struct {
	preview *core.CherryPickPreview
	said    words.Preview
}

func formReview(p words.Preview) *taskReview { return &taskReview{preview: p.Of, said: p} }

// previewLine says in one line whether the change applies to the source's HEAD.
func previewLine(rv *taskReview) string { return rv.said.Line() }

package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/tui/review"
)

// The root's side of the review tab (tui/review): where it stands, what it asks, the dialogs it
// opens and what the finalize form reads of it.

// reviewAt is the review tab placed where the selected task's detail is drawn.
func (m *Model) reviewAt() review.Review {
	p := review.Place{Screen: m.width, Width: m.detailWidth(), Height: m.detailHeight()}
	if tv := m.list.selectedTask(); tv != nil {
		p.Task = *tv
	}
	return m.review.In(p)
}

// reviewDo hands msg to the review tab and carries out what it asks.
func (m *Model) reviewDo(msg tea.Msg) tea.Cmd {
	rv, cmd, res := m.reviewAt().Update(msg)
	m.review = rv
	return m.carryReview(cmd, res)
}

// carryReview carries out what the review tab asked, after its command.
func (m *Model) carryReview(cmd tea.Cmd, res review.Result) tea.Cmd {
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
		m.push(m.errorNotice(f.Title, f.Err))
	}
	cmds := []tea.Cmd{cmd}
	if res.Do != nil {
		cmds = append(cmds, m.perform(res.Do))
	}
	if res.ReloadList {
		cmds = append(cmds, m.refreshList())
	}
	if res.Reload != "" {
		cmds = append(cmds, m.fetchDetail(res.Reload))
	}
	return tea.Batch(cmds...)
}

// onResult hands the result of a review, editor or apply command to its handler: each is a
// typed message, most of them carrying their task's id.
func (m *Model) onResult(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case review.Message:
		return m.reviewDo(msg)
	case contractEditedMsg:
		return m.onContractEdited(msg)
	case applyMsg:
		return m.onApply(msg)
	}
	return nil
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

// ---- events ----

// formatReviewEvent is the events-view line of the review events.
func formatReviewEvent(ev core.Event) (entryKind, string) {
	switch ev.Type {
	case core.EventReviewComment:
		c, _ := core.DataOf[core.ReviewComment](ev)
		verb := "comment"
		switch c.Status {
		case core.CommentDeleted:
			verb = "deleted"
		case core.CommentOutdated:
			verb = "outdated"
		}
		return kindSteer, fmt.Sprintf("review %s %s on %s:%d: %s", verb, c.ID, c.Path, c.Line, firstLineOf(c.Body))
	case core.EventReviewCommentsSent:
		d, _ := core.DataOf[core.CommentsSentData](ev)
		return kindSteer, fmt.Sprintf("review sent %d comment(s) as repair round %d: %s", len(d.CommentIDs), d.RepairRound, strings.Join(d.CommentIDs, ", "))
	case core.EventReviewSummary:
		d, _ := core.DataOf[core.ReviewSummaryData](ev)
		return kindState, fmt.Sprintf("review summary of revision %d: %s", d.ReviewRevision, d.Summary)
	}
	return kindInfo, ev.Type
}

func firstLineOf(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

package contract

import (
	"fmt"
	"strings"

	"reasonixctl/core"
	"reasonixctl/core/safetext"
	"reasonixctl/tui/term"
	"reasonixctl/tui/words"
)

// View draws the contract and its evidence in width × height cells, from where the tab was
// paged to. It lays out a copy of the tab: what the tab keeps is laid out again at its own size
// before each key.
func (m Model) View(width, height int) string {
	return m.render(width, height)
}

// render draws the tab at w × h, setting the viewport to that size and the text wrapped to it.
func (m *Model) render(w, h int) string {
	t := m.theme
	d := m.detail
	if d == nil {
		return t.Dim.Render(" loading…")
	}
	var lines []string
	// Everything here is the worker's or the repository's: sanitized before it is wrapped.
	add := func(s string) {
		lines = append(lines, term.WrapLines(safetext.Sanitize(s), w-2)...)
	}
	head := func(s string) { lines = append(lines, t.Title.Render(s)) }
	head("Objective")
	add(d.Objective)
	c := parseContract(d.Contract)
	if len(c.WriteScope) > 0 || len(c.ForbiddenScope) > 0 {
		head("Scopes")
		add("write:     " + strings.Join(c.WriteScope, ", "))
		if len(c.ForbiddenScope) > 0 {
			add("forbidden: " + strings.Join(c.ForbiddenScope, ", "))
		}
	}
	head("Criteria")
	approved := map[string]core.AcceptanceEvidence{}
	for _, a := range d.Acceptance {
		approved[a.CriterionID] = a
	}
	criteria := d.Criteria
	if len(criteria) == 0 {
		criteria = c.Criteria
	}
	for _, cr := range criteria {
		box := "[ ]"
		if a, ok := approved[cr.ID]; ok && a.Approved {
			box = "[x]"
		}
		add(fmt.Sprintf("%s %s (%s): %s", box, cr.ID, cr.Evidence, cr.Requirement))
	}
	if len(criteria) == 0 {
		add("none")
	}
	head("Verification")
	if len(d.Verification) == 0 {
		add("not run yet")
	}
	for _, v := range d.Verification {
		add(words.Verification(v))
	}
	if d.Summary != "" {
		head("Worker summary")
		add(d.Summary)
	}
	if d.ReviewSummary != "" {
		head("Review summary")
		add(d.ReviewSummary)
	}
	if len(d.Comments) > 0 {
		head("Review comments")
		for _, c := range d.Comments {
			add(fmt.Sprintf("%s %s %s:%d (revision %d): %s", c.ID, c.Status, c.Path, c.Line, c.Revision, c.Body))
		}
	}
	if len(d.Risks) > 0 {
		head("Risks")
		for _, r := range d.Risks {
			add("• " + r)
		}
	}
	head("Task")
	add("repository " + d.Repository)
	add("branch " + d.View.Branch + " · worktree " + d.View.Worktree)
	if d.View.ReviewRevision > 0 {
		add(fmt.Sprintf("review revision %d · tree %s · repair rounds %d/%d", d.View.ReviewRevision, d.View.ReviewTreeHash, d.View.RepairRounds, core.MaxRepairRounds))
	}
	if d.View.CommitHash != "" {
		add("commit " + d.View.CommitHash + " · " + d.View.IntegrationCommand)
	}
	if d.Usage != nil {
		add("usage " + words.Usage(d.Usage))
	}
	for i := range lines {
		lines[i] = " " + lines[i]
	}
	m.vp.Width, m.vp.Height = w, h
	m.vp.SetContent(strings.Join(lines, "\n"))
	return m.vp.View()
}

package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/core/safetext"
	"reasonixctl/tui/bind"
	"reasonixctl/tui/term"
)

// The contract tab: the contract and its evidence, a viewport that pages.

func (m *Model) viewContract(ti *taskInfo, w, h int) string {
	t := m.theme
	d := ti.detail
	if d == nil {
		return t.Dim.Render(" loading…")
	}
	var lines []string
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
		add(formatVerification(v))
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
		add("usage " + formatUsage(d.Usage))
	}
	for i := range lines {
		lines[i] = " " + lines[i]
	}
	ti.contract.Width, ti.contract.Height = w, h
	ti.contract.SetContent(strings.Join(lines, "\n"))
	return ti.contract.View()
}

// contractTab is the contract and evidence tab: a viewport that pages.
type contractTab struct{ m *Model }

func (p contractTab) capturing() bool { return false }

func (p contractTab) key(msg tea.KeyMsg) (tea.Cmd, bool) {
	_, ti := p.m.selectedInfo()
	if ti == nil {
		return nil, false
	}
	k := p.m.keys
	if !key.Matches(msg, k.PageDown, k.PageUp, k.Top, k.Bottom) {
		return nil, false
	}
	bind.ScrollViewport(&ti.contract, msg, k)
	return nil, true
}

func (p contractTab) view(w, h int) string {
	_, ti := p.m.selectedInfo()
	return p.m.viewContract(ti, w, h)
}

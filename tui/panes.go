package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
)

// The panes that can hold the keys when no dialog is open. Each is one pointer wide, so handing
// one out as a pane costs nothing; each finds the selected task itself.

type detailTab int

const (
	tabEvents detailTab = iota
	tabDiff
	tabContract
	tabChecks
	tabCount
)

var tabNames = [tabCount]string{"Events", "Diff", "Contract", "Checks"}

// focused is the pane that has the keys when no dialog is open: the replay while one is on
// screen, else the selected task's current tab; nil when no task is selected.
func (m *Model) focused() pane {
	if m.rp != nil {
		return replayPane{m}
	}
	if m.list.selectedTask() == nil {
		return nil
	}
	switch m.tab {
	case tabEvents:
		return eventsTab{m}
	case tabDiff:
		return diffTab{m}
	case tabContract:
		return contractTab{m}
	case tabChecks:
		return checksTab{m}
	}
	return nil
}

// selectedInfo is the selected task and what the dashboard keeps of it, or nils.
func (m *Model) selectedInfo() (*core.TaskView, *taskInfo) {
	t := m.list.selectedTask()
	if t == nil {
		return nil, nil
	}
	return t, m.task(t.TaskID)
}

// eventsTab is the events tab: the selected task's events pane, with its search and filter
// (events.go, search.go); keys that scroll past what is loaded page the journal in.
type eventsTab struct{ m *Model }

func (p eventsTab) capturing() bool {
	_, ti := p.m.selectedInfo()
	return ti != nil && ti.events.capturing()
}

func (p eventsTab) key(msg tea.KeyMsg) (tea.Cmd, bool) {
	t, ti := p.m.selectedInfo()
	if ti == nil || !ti.events.update(msg, p.m.keys.eventKeys()) {
		return nil, false
	}
	return p.m.pageCmd(t.TaskID), true
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
	scrollViewport(&ti.contract, msg, k)
	return nil, true
}

// checksTab is the checks tab: the last finalize's verification, its logs and their search
// (checks.go).
type checksTab struct{ m *Model }

func (p checksTab) capturing() bool {
	_, ti := p.m.selectedInfo()
	return ti != nil && ti.checks.search.typing
}

func (p checksTab) key(msg tea.KeyMsg) (tea.Cmd, bool) { return nil, p.m.checksKey(msg) }

// replayPane is the replay of a task's journal (replay.go): it takes every key while on screen.
type replayPane struct{ m *Model }

func (p replayPane) capturing() bool { return false }

func (p replayPane) key(msg tea.KeyMsg) (tea.Cmd, bool) { return p.m.replayKey(msg), true }

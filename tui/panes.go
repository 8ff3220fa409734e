package tui

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
	if t := m.tabPane(); t != nil {
		return t
	}
	return nil
}

// tab is one tab of the selected task's detail: a pane that also draws itself under the tab
// bar.
type tab interface {
	pane
	view(w, h int) string
}

// tabPane is the selected task's current tab; nil when no task is selected.
func (m *Model) tabPane() tab {
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

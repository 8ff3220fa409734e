package tui

import (
	"encoding/base64"
	"io"

	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/tui/term"
)

// osc52 is the terminal escape that puts text on the system clipboard ("c"): it travels with the
// program's output, so it works over SSH where no local clipboard tool can reach.
func osc52(text string) string {
	return "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(text)) + "\x07"
}

// copyText writes text to the clipboard through the program's output and says what it copied.
func (m *Model) copyText(text, what string) tea.Cmd {
	w := m.opts.Output
	if w == nil {
		m.setStatus("cannot copy: the dashboard has no terminal output", true, "")
		return nil
	}
	m.setStatus("copied "+what+": "+term.Short(text, 80), false, "")
	seq := osc52(text)
	return func() tea.Msg {
		_, _ = io.WriteString(w, seq)
		return nil
	}
}

// copyKey is `y` where the tab on screen does not take it (the review tab copies the file's
// path): after a commit the cherry-pick line.
func (m *Model) copyKey(t *core.TaskView) tea.Cmd {
	if t.CommitHash != "" {
		line := t.IntegrationCommand
		if line == "" {
			line = "git cherry-pick " + t.CommitHash
		}
		return m.copyText(line, "the cherry-pick line")
	}
	m.setStatus("nothing to copy here: y copies the file path in the diff view (2) and the cherry-pick line after a commit", false, "")
	return nil
}

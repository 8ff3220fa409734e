package tui

import (
	"os"
	"os/exec"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// The new-task form's ctrl+e edits the contract file itself (a draft, or the person's own) in
// $VISUAL or $EDITOR, and comes back to the form.

type contractEditedMsg struct {
	path string
	err  error
}

// editContract opens path in $VISUAL or $EDITOR (vi without either) and reports when it is closed.
func editContract(path string) tea.Cmd {
	prog := strings.Fields(os.Getenv("VISUAL"))
	if len(prog) == 0 {
		prog = strings.Fields(os.Getenv("EDITOR"))
	}
	if len(prog) == 0 {
		prog = []string{"vi"}
	}
	cmd := exec.Command(prog[0], append(prog[1:], path)...)
	return tea.ExecProcess(cmd, func(err error) tea.Msg { return contractEditedMsg{path: path, err: err} })
}

package tui

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
)

// `e` opens the reviewed bytes of a file, never the worktree: reading cannot change what was
// reviewed. The bytes come from the review tree, go to a read-only temporary file that the
// editor (or pager) reads, and the file is removed when it exits.

type editorFileMsg struct {
	taskID, path string
	line         int
	data         []byte
	err          error
}

type editorDoneMsg struct {
	dir, path string
	err       error
}

// editLine is the line of the new file to open at for line i: a removed line has none, so the
// nearest new line above it.
func editLine(f *diffFile, i int) int {
	for j := i; j >= 0; j-- {
		if n := f.lines[j].newNo; n > 0 && f.lines[j].kind != '-' {
			return int(n)
		}
		if f.lines[j].kind == '@' || f.lines[j].kind == 'F' {
			break
		}
	}
	return 1
}

func (m *Model) openEditor(t *core.TaskView, ti *taskInfo, f *diffFile) tea.Cmd {
	r := m.reviewer()
	if r == nil {
		m.setStatus("opening files needs the engine's review features, which this connection does not offer", true, t.TaskID)
		return nil
	}
	for _, l := range f.labels {
		if l == "deleted" || l == "binary" {
			m.setStatus(f.name+" is "+l+": there is nothing to open", false, t.TaskID)
			return nil
		}
	}
	line := editLine(f, ti.rv.sel)
	id, name := t.TaskID, f.name
	return func() tea.Msg {
		b, err := r.ReviewFile(m.ctx, id, name)
		return editorFileMsg{taskID: id, path: name, line: line, data: b, err: err}
	}
}

func (m *Model) onEditorFile(msg editorFileMsg) tea.Cmd {
	if msg.err != nil {
		m.push(errorNotice("opening "+msg.path+" failed", msg.err))
		return nil
	}
	dir, file, err := readOnlyCopy(msg.path, msg.data)
	if err != nil {
		m.setStatus("cannot write a temporary copy: "+err.Error(), true, "")
		return nil
	}
	cmd := editorCommand(os.Getenv, file, msg.line)
	p := msg.path
	return tea.ExecProcess(cmd, func(err error) tea.Msg { return editorDoneMsg{dir: dir, path: p, err: err} })
}

func (m *Model) onEditorDone(msg editorDoneMsg) tea.Cmd {
	_ = os.RemoveAll(msg.dir)
	if msg.err != nil {
		m.setStatus("the editor ended with: "+msg.err.Error(), true, "")
		return nil
	}
	m.setStatus("closed the read-only copy of "+msg.path, false, "")
	return nil
}

// readOnlyCopy writes data to a new temporary folder under the file's own name (so the
// editor picks the right syntax), read-only.
func readOnlyCopy(name string, data []byte) (dir, file string, err error) {
	dir, err = os.MkdirTemp("", "reasonixctl-review-")
	if err != nil {
		return "", "", err
	}
	file = filepath.Join(dir, path.Base(name))
	if err := os.WriteFile(file, data, 0o400); err != nil {
		os.RemoveAll(dir)
		return "", "", err
	}
	return dir, file, nil
}

// editorCommand runs $EDITOR, else $PAGER, else less, on file at line. The line goes as +N to
// the editors and pagers known to take it, and as file:N to those that read it that way.
func editorCommand(getenv func(string) string, file string, line int) *exec.Cmd {
	prog := strings.Fields(getenv("EDITOR"))
	if len(prog) == 0 {
		prog = strings.Fields(getenv("PAGER"))
	}
	if len(prog) == 0 {
		prog = []string{"less"}
	}
	args := append([]string{}, prog[1:]...)
	switch filepath.Base(prog[0]) {
	case "vi", "vim", "nvim", "view", "nano", "emacs", "emacsclient", "less", "more", "micro", "kak", "joe", "mg", "ne":
		args = append(args, "+"+strconv.Itoa(line), file)
	case "hx", "helix":
		args = append(args, file+":"+strconv.Itoa(line))
	case "code", "codium", "subl", "zed":
		args = append(args, "--wait", file+":"+strconv.Itoa(line))
		if filepath.Base(prog[0]) == "code" || filepath.Base(prog[0]) == "codium" {
			args = append(args[:len(args)-1], "--goto", file+":"+strconv.Itoa(line))
		}
	default:
		args = append(args, file)
	}
	return exec.Command(prog[0], args...)
}

// The new-task form's ctrl+e edits the contract file itself (a draft, or the person's own) in
// $VISUAL or $EDITOR, and comes back to the form.

type contractEditedMsg struct {
	path string
	err  error
}

func (m *Model) editContract(path string) tea.Cmd {
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

func (m *Model) onContractEdited(msg contractEditedMsg) tea.Cmd {
	d, _ := m.dialogs.top().(*newTaskDialog)
	switch {
	case d == nil:
	case msg.err != nil:
		d.err, d.note = "the editor ended with: "+msg.err.Error(), ""
	default:
		d.err, d.note = "", "edited "+msg.path+"; ctrl+s starts the task (the contract is checked then)"
	}
	return nil
}

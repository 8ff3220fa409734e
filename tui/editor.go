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
	"reasonixctl/tui/dialog"
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
	// note says what showed the file (editorNote).
	note string
	err  error
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
	r := m.svc
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
		m.push(m.errorNotice("opening "+msg.path+" failed", msg.err))
		return nil
	}
	dir, file, err := readOnlyCopy(msg.path, msg.data)
	if err != nil {
		m.setStatus("cannot write a temporary copy: "+err.Error(), true, "")
		return nil
	}
	cmd := editorCommand(os.Getenv, file, msg.line)
	p, note := msg.path, editorNote(os.Getenv, msg.path, msg.line)
	m.setStatus(note, false, "")
	return tea.ExecProcess(cmd, func(err error) tea.Msg { return editorDoneMsg{dir: dir, path: p, note: note, err: err} })
}

func (m *Model) onEditorDone(msg editorDoneMsg) tea.Cmd {
	_ = os.RemoveAll(msg.dir)
	if msg.err != nil {
		m.setStatus("the editor ended with: "+msg.err.Error()+" ("+msg.note+")", true, "")
		return nil
	}
	if msg.note != "" {
		m.setStatus(msg.note, false, "")
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

// editorCommand is the command that shows file at line: see chooseEditor and lineArgs.
func editorCommand(getenv func(string) string, file string, line int) *exec.Cmd {
	prog, _ := chooseEditor(getenv)
	return exec.Command(prog[0], append(append([]string{}, prog[1:]...), lineArgs(prog[0], file, line)...)...)
}

// chooseEditor is $VISUAL, else $EDITOR, else $PAGER, else less, as words, with where it came
// from ("$VISUAL", …, "" for the built-in less).
func chooseEditor(getenv func(string) string) (prog []string, from string) {
	for _, v := range []string{"VISUAL", "EDITOR", "PAGER"} {
		if prog := strings.Fields(getenv(v)); len(prog) > 0 {
			return prog, "$" + v
		}
	}
	return []string{"less"}, ""
}

// lineArgs opens file at line in prog: +LINE before the file, the convention of vi, vim, nvim,
// emacs, nano, micro, kak, less and most editors run in a terminal; file:line where that is
// how the editor reads it (VS Code's --goto, Sublime Text, Zed, Helix), waiting for the window
// to close so the read-only copy outlives it; ed alone gets no line.
func lineArgs(prog, file string, line int) []string {
	at := file + ":" + strconv.Itoa(line)
	switch filepath.Base(prog) {
	case "code", "codium", "code-insiders", "cursor":
		return []string{"--wait", "--goto", at}
	case "subl", "sublime_text", "zed":
		return []string{"--wait", at}
	case "hx", "helix":
		return []string{at}
	case "ed", "red":
		return []string{file}
	}
	return []string{"+" + strconv.Itoa(line), file}
}

// editorNote says in the status line what showed a file: which program, from which variable,
// or that neither $VISUAL nor $EDITOR is set and less stood in.
func editorNote(getenv func(string) string, name string, line int) string {
	prog, from := chooseEditor(getenv)
	what := filepath.Base(prog[0])
	switch from {
	case "":
		return "no $VISUAL or $EDITOR is set, so less showed " + name + "; set one to open files in your editor"
	case "$PAGER":
		return "no $VISUAL or $EDITOR is set, so " + what + " ($PAGER) showed " + name + "; set one to open files in your editor"
	}
	return what + " (" + from + ") opened a read-only copy of " + name + " at line " + strconv.Itoa(line)
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
	if d, ok := m.dialogs.Top().(*dialog.NewTask); ok {
		d.Edited(msg.path, msg.err)
	}
	return nil
}

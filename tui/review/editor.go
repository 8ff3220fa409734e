package review

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// `e` opens the reviewed bytes of a file, never the worktree: reading cannot change what was
// reviewed. The bytes come from the review tree, go to a read-only temporary file that the
// editor (or pager) reads, and the file is removed when it exits.

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

// nothingToOpen says why f has nothing to open in the editor: it is deleted, or binary.
func nothingToOpen(f *diffFile) string {
	for _, l := range f.labels {
		if l == "deleted" || l == "binary" {
			return f.name + " is " + l + ": there is nothing to open"
		}
	}
	return ""
}

// openEditor reads the reviewed bytes of f and writes them to a read-only copy, off the update
// loop; EditorFile then runs the editor on it.
func (r Review) openEditor(rv *taskReview, f *diffFile) tea.Cmd {
	svc, ctx := r.cfg.Service, r.cfg.Context
	line := editLine(f, rv.sel)
	id, name := r.place.Task.TaskID, f.name
	return func() tea.Msg {
		msg := EditorFile{TaskID: id, Path: name, Line: line}
		b, err := svc.ReviewFile(ctx, id, name)
		if err != nil {
			msg.Err = err
			return msg
		}
		if msg.Dir, msg.File, err = readOnlyCopy(name, b); err != nil {
			msg.CopyErr = err
			return msg
		}
		msg.Exec, msg.Note = editorCommand(os.Getenv, msg.File, line), editorNote(os.Getenv, name, line)
		return msg
	}
}

func (r Review) onEditorFile(msg EditorFile) (tea.Cmd, Result) {
	switch {
	case msg.Err != nil:
		return nil, Result{Failed: &Failure{Title: "opening " + msg.Path + " failed", Err: msg.Err}}
	case msg.CopyErr != nil:
		return nil, say("cannot write a temporary copy: "+msg.CopyErr.Error(), true, "")
	}
	done := EditorDone{TaskID: msg.TaskID, Dir: msg.Dir, Path: msg.Path, Note: msg.Note}
	return tea.ExecProcess(msg.Exec, func(err error) tea.Msg {
		done.Err = err
		return done
	}), say(msg.Note, false, "")
}

// onEditorDone removes the read-only copy, in a command, and says how the editor ended.
func (r Review) onEditorDone(msg EditorDone) (tea.Cmd, Result) {
	var remove tea.Cmd
	if dir := msg.Dir; dir != "" {
		remove = func() tea.Msg {
			_ = os.RemoveAll(dir)
			return nil
		}
	}
	switch {
	case msg.Err != nil:
		return remove, say("the editor ended with: "+msg.Err.Error()+" ("+msg.Note+")", true, "")
	case msg.Note != "":
		return remove, say(msg.Note, false, "")
	}
	return remove, say("closed the read-only copy of "+msg.Path, false, "")
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

package review

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// `e` takes $VISUAL before $EDITOR, gives the line to every editor (+LINE unless it reads
// file:line), and says what showed the file, or that less stood in.
func TestEditorPrefersVisualAndSaysWhichItOpened(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	for _, tc := range []struct {
		env  map[string]string
		want []string
		note string
	}{
		{map[string]string{"VISUAL": "nvim", "EDITOR": "nano"}, []string{"nvim", "+12", "/t/a.go"}, "nvim ($VISUAL) opened a read-only copy of a.go at line 12"},
		{map[string]string{"EDITOR": "nano"}, []string{"nano", "+12", "/t/a.go"}, "nano ($EDITOR) opened a read-only copy of a.go at line 12"},
		{map[string]string{"EDITOR": "/usr/bin/emacs -nw"}, []string{"/usr/bin/emacs", "-nw", "+12", "/t/a.go"}, "emacs ($EDITOR)"},
		{map[string]string{"EDITOR": "kak"}, []string{"kak", "+12", "/t/a.go"}, "kak ($EDITOR)"},
		{map[string]string{"EDITOR": "micro"}, []string{"micro", "+12", "/t/a.go"}, "micro ($EDITOR)"},
		{map[string]string{"VISUAL": "someeditor"}, []string{"someeditor", "+12", "/t/a.go"}, "someeditor ($VISUAL)"},
		{map[string]string{"VISUAL": "code"}, []string{"code", "--wait", "--goto", "/t/a.go:12"}, "code ($VISUAL)"},
		{map[string]string{"VISUAL": "subl"}, []string{"subl", "--wait", "/t/a.go:12"}, "subl ($VISUAL)"},
		{map[string]string{"EDITOR": "hx"}, []string{"hx", "/t/a.go:12"}, "hx ($EDITOR)"},
		{map[string]string{"PAGER": "most"}, []string{"most", "+12", "/t/a.go"}, "no $VISUAL or $EDITOR is set, so most ($PAGER) showed a.go"},
		{map[string]string{}, []string{"less", "+12", "/t/a.go"}, "no $VISUAL or $EDITOR is set, so less showed a.go; set one to open files in your editor"},
	} {
		if got := editorCommand(env(tc.env), "/t/a.go", 12).Args; !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%v: %q, want %q", tc.env, got, tc.want)
		}
		if got := editorNote(env(tc.env), "a.go", 12); !strings.Contains(got, tc.note) {
			t.Errorf("%v: note %q, want %q", tc.env, got, tc.note)
		}
	}
}

func TestEditorCommandTakesTheLineWhereItCan(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	for _, tc := range []struct {
		env  map[string]string
		want []string
	}{
		{map[string]string{"EDITOR": "vim"}, []string{"vim", "+12", "/t/a.go"}},
		{map[string]string{"EDITOR": "code -n"}, []string{"code", "-n", "--wait", "--goto", "/t/a.go:12"}},
		{map[string]string{"EDITOR": "hx"}, []string{"hx", "/t/a.go:12"}},
		{map[string]string{"EDITOR": "ed"}, []string{"ed", "/t/a.go"}},
		{map[string]string{"PAGER": "less -R"}, []string{"less", "-R", "+12", "/t/a.go"}},
		{map[string]string{}, []string{"less", "+12", "/t/a.go"}},
	} {
		if got := editorCommand(env(tc.env), "/t/a.go", 12).Args; !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%v: %q, want %q", tc.env, got, tc.want)
		}
	}
}

// e reads the reviewed file and writes it to a read-only copy inside its command, never in
// Update; the copy is removed, again by a command, when the editor exits.
func TestEditorGetsAReadOnlyCopyThatIsRemoved(t *testing.T) {
	h := newHarness(t, loginFix(sampleDiff), 120, 30)
	h.svc.files = map[string][]byte{"internal/auth/login.go": []byte("package auth\n")}
	h.press("]", "J")
	r, cmd, res := h.r.In(h.place).Update(keyMsg("e"))
	h.r = r
	if res.Status != nil || cmd == nil {
		t.Fatalf("e: %+v", res)
	}
	msg, ok := cmd().(EditorFile)
	if !ok || msg.Path != "internal/auth/login.go" || msg.Line != 11 || msg.Err != nil || msg.CopyErr != nil || msg.Exec == nil {
		t.Fatalf("editor file: %+v", msg)
	}
	t.Cleanup(func() { os.RemoveAll(msg.Dir) })
	st, err := os.Stat(msg.File)
	if err != nil || st.Mode().Perm() != 0o400 || filepath.Base(msg.File) != "login.go" || filepath.Dir(msg.File) != msg.Dir {
		t.Fatalf("copy %s: %v %v", msg.File, st, err)
	}
	if b, err := os.ReadFile(msg.File); err != nil || string(b) != "package auth\n" {
		t.Fatalf("copy holds %q (%v)", b, err)
	}
	if got := msg.Exec.Args[len(msg.Exec.Args)-1]; got != msg.File {
		t.Fatalf("the editor opens %q, not the copy", got)
	}
	h.send(msg)
	h.requireStatus(msg.Note)
	h.send(EditorDone{TaskID: msg.TaskID, Dir: msg.Dir, Path: msg.Path})
	if _, err := os.Stat(msg.Dir); !os.IsNotExist(err) {
		t.Fatalf("temporary copy left behind: %v", err)
	}
	h.requireStatus("closed the read-only copy of internal/auth/login.go")

	// A file the engine cannot give is a notice; a deleted or binary file has nothing to open.
	h.press("}", "e")
	if len(h.failed) != 1 || h.failed[0].Title != "opening internal/auth/login_test.go failed" {
		t.Fatalf("failures %+v", h.failed)
	}
	h = newHarness(t, loginFix(reviewDiff), 120, 30)
	h.press("}", "}", "e")
	h.requireStatus("logo.png is binary: there is nothing to open")
}

// The status line after the editor names what showed the file.
func TestEditorDoneSaysWhatShowedTheFile(t *testing.T) {
	h := newHarness(t, loginFix(sampleDiff), 120, 30)
	h.send(EditorDone{Dir: t.TempDir(), Path: "a.go", Note: "no $VISUAL or $EDITOR is set, so less showed a.go; set one to open files in your editor"})
	h.requireStatus("no $VISUAL or $EDITOR is set, so less showed a.go")
}

package tui

import (
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

// The status line after the editor names what showed the file.
func TestEditorDoneSaysWhatShowedTheFile(t *testing.T) {
	h := newHarness(t, scenario(), 120, 40)
	h.send(editorDoneMsg{dir: t.TempDir(), path: "a.go", note: "no $VISUAL or $EDITOR is set, so less showed a.go; set one to open files in your editor"})
	h.requireView("no $VISUAL or $EDITOR is set, so less showed a.go")
}

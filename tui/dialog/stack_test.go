package dialog

import (
	"strings"
	"testing"
	"time"

	"reasonixctl/core"
)

// The stack keeps the keys of a new prompt's grace, ctrl+c, help and paging; the rest go to the
// top dialog.
func TestStackKeepsWhatIsItsOwn(t *testing.T) {
	var s Stack
	s.Push(NewNotice("n"), epoch)
	for _, c := range []struct {
		key  string
		want Step
	}{
		{"?", ShowHelp},
		{"pgdown", Took},
		{"ctrl+c", AskQuit},
		{"esc", ToTop},
		{"y", ToTop},
	} {
		if got := s.Key(keyMsg(c.key), keyMap, epoch); got != c.want {
			t.Errorf("%q over a notice: %d, want %d", c.key, got, c.want)
		}
	}
	if s.scroll != 5 {
		t.Errorf("pgdown scrolled the body to %d", s.scroll)
	}

	s.Push(NewQuitConfirm("Quit?", ""), epoch)
	if got := s.Key(keyMsg("ctrl+c"), keyMap, epoch); got != Quit {
		t.Errorf("ctrl+c in the quit confirmation: %d", got)
	}

	// A prompt's grace: keys are kept for as long as they keep coming; after a pause the next
	// one reaches the prompt.
	s.Push(NewPrompt("t", permissionIA("ia-1"), "", 0), epoch)
	at := epoch
	for at.Before(epoch.Add(3 * time.Second)) {
		if got := s.Key(keyMsg("a"), keyMap, at); got != Took {
			t.Fatalf("a key %v after the prompt opened reached it", at.Sub(epoch))
		}
		at = at.Add(GraceQuiet / 2)
	}
	at = at.Add(GraceQuiet)
	if got := s.Key(keyMsg("a"), keyMap, at); got != ToTop {
		t.Fatalf("a key after a pause: %d", got)
	}

	// Typing a word at two keys a second as a prompt opens under it: no key of the word reaches
	// the prompt.
	s.Remove(s.Top())
	s.Push(NewPrompt("t", permissionIA("ia-2"), "", 0), epoch)
	for i, at := 0, epoch.Add(200*time.Millisecond); i < 6; i, at = i+1, at.Add(500*time.Millisecond) {
		if got := s.Key(keyMsg("make a"[i:i+1]), keyMap, at); got != Took {
			t.Fatalf("key %d of a word typed at 2 keys/s, %v after the prompt opened, reached it", i, at.Sub(epoch))
		}
	}
}

// A dialog taking text keeps ?, pgup and pgdown as text; the help reads its own.
func TestStackLeavesTextToATypingDialog(t *testing.T) {
	var s Stack
	s.Push(NewSteer(core.TaskView{TaskID: "t", State: core.StateRunning}), epoch)
	for _, k := range []string{"?", "pgdown", "pgup"} {
		if got := s.Key(keyMsg(k), keyMap, epoch); got != ToTop {
			t.Errorf("%q in the steer form: %d", k, got)
		}
	}
	s.Push(NewHelp(nil), epoch)
	for _, k := range []string{"?", "pgdown"} {
		if got := s.Key(keyMsg(k), keyMap, epoch); got != ToTop {
			t.Errorf("%q in the help: %d", k, got)
		}
	}
}

// The stack finds a task's steer and a request's prompt wherever they are, and removes a
// dialog from the middle.
func TestStackFindsAndRemoves(t *testing.T) {
	var s Stack
	steer := NewSteer(core.TaskView{TaskID: "t1", State: core.StateRunning})
	prompt := NewPrompt("t2", questionIA("q-1"), "", 0)
	s.Push(steer, epoch)
	s.Push(prompt, epoch)
	s.Push(NewNotice("n"), epoch)
	if s.Steer("t1") != steer || s.Steer("t2") != nil || s.Prompt("q-1") != prompt || !s.HasPrompt() {
		t.Fatal("the stack did not find its dialogs")
	}
	s.Remove(prompt)
	if s.HasPrompt() || len(s.All()) != 2 || s.Top() == nil || s.Empty() {
		t.Fatalf("after removing the prompt: %d dialogs", len(s.All()))
	}
}

// A body taller than the screen scrolls with pgdown and says where it is; the key line stays,
// and the grace cue takes its place while keys are paused.
func TestStackViewScrollsTheBodyAndKeepsTheKeys(t *testing.T) {
	var s Stack
	lines := make([]string, 40)
	for i := range lines {
		lines[i] = "line " + string(rune('A'+i%26))
	}
	s.Push(NewNotice("Long", lines...), epoch)
	v := s.View(theme, keyMap, 80, 20, epoch)
	if !strings.Contains(v, "↕ pgup/pgdn scroll (1–") || !strings.Contains(v, "esc close") {
		t.Fatalf("first page:\n%s", v)
	}
	s.Key(keyMsg("pgdown"), keyMap, epoch)
	if v := s.View(theme, keyMap, 80, 20, epoch); !strings.Contains(v, "(6–") {
		t.Fatalf("after pgdown:\n%s", v)
	}
	for _, l := range strings.Split(v, "\n") {
		if w := len([]rune(l)); w > 80 {
			t.Fatalf("a line of %d cells:\n%s", w, v)
		}
	}

	s.Push(NewPrompt("t", permissionIA("ia-1"), "", 0), epoch)
	if v := s.View(theme, keyMap, 80, 20, epoch.Add(400*time.Millisecond)); !strings.Contains(v, "keys paused 0.6s") || strings.Contains(v, "a allow once") {
		t.Fatalf("in the grace:\n%s", v)
	}
	if v := s.View(theme, keyMap, 80, 20, epoch.Add(GraceQuiet)); !strings.Contains(v, "a allow once") {
		t.Fatalf("after the grace:\n%s", v)
	}
}

func TestDialogsThatOpenByThemselves(t *testing.T) {
	for _, c := range []struct {
		d           Dialog
		top, itself bool
	}{
		{NewPrompt("t", permissionIA("ia-1"), "", 0), true, true},
		{Intro("The demo", []string{"A note."}), false, true},
		{NewNotice("Committed"), false, false},
		{NewSteer(core.TaskView{TaskID: "t", State: core.StateRunning}), false, false},
	} {
		if SitsAtTop(c.d) != c.top || OpensByItself(c.d) != c.itself {
			t.Errorf("%T: at top %v, by itself %v", c.d, SitsAtTop(c.d), OpensByItself(c.d))
		}
	}
}

// keyLine is the last line of a dialog's keys.
func keyLine(d Dialog, width int) string {
	_, keys := d.View(theme, keyMap, width)
	lines := strings.Split(keys, "\n")
	return lines[len(lines)-1]
}

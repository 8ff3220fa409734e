package dialog

import (
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"

	"reasonixctl/tui/bind"
)

// The dialogs' help groups list every key their tables read, each once: all the prompt's and
// the forms' keys of the key map, and those the dialogs added to it.
func TestHelpGroupsListTheDialogsKeys(t *testing.T) {
	k := keyMap
	groups := HelpGroups(k)
	if len(groups) != 2 || groups[0].Title != "Prompt" || groups[1].Title != "Forms" {
		t.Fatalf("groups %+v", groups)
	}
	has := func(g bind.Group, b key.Binding) bool {
		for _, x := range g.Bindings {
			if x.Help() == b.Help() {
				return true
			}
		}
		return false
	}
	for _, b := range []key.Binding{k.AllowOnce, k.AllowSession, k.AllowRepo, k.Deny, k.Option, k.StepOption, k.Choose, k.FreeText, k.Later} {
		if !has(groups[0], b) {
			t.Errorf("the prompt's help lacks %q", b.Help().Desc)
		}
	}
	for _, b := range []key.Binding{k.FocusNext, k.FocusPrev, k.Toggle, k.Submit, k.AckRisks, k.Excuse, k.Yes, k.No, k.Dismiss,
		k.Back, k.Draft, k.EditContract, k.SwitchLane} {
		if !has(groups[1], b) {
			t.Errorf("the forms' help lacks %q", b.Help().Desc)
		}
	}
	seen := map[key.Help]bool{}
	for _, b := range groups[1].Bindings {
		if seen[b.Help()] {
			t.Errorf("%q listed twice", b.Help().Desc)
		}
		seen[b.Help()] = true
	}
}

// The help lists the groups it is given, scrolls and says where it is, and closes with esc or ?.
func TestHelpScrollsAndCloses(t *testing.T) {
	d := NewHelp(append([]bind.Group{{Title: "Tasks", Bindings: []key.Binding{keyMap.Up, keyMap.Down}}}, HelpGroups(keyMap)...))
	d.SetHeight(10)
	body, keys := d.View(theme, keyMap, 76)
	if !strings.HasPrefix(body, "Tasks") || !strings.Contains(keys, "lines 1–10 of") || !strings.Contains(keys, "↑↓/pgup/pgdn scroll · esc/? close") {
		t.Fatalf("first page:\n%s\n%s", body, keys)
	}
	press(d, "j", "pgdown")
	if _, keys := d.View(theme, keyMap, 76); !strings.Contains(keys, "lines 12–21 of") {
		t.Fatalf("after j and pgdown: %s", keys)
	}
	press(d, "G")
	if body, _ := d.View(theme, keyMap, 76); !strings.Contains(body, "copy the command") {
		t.Fatalf("the end:\n%s", body)
	}
	for _, k := range []string{"esc", "?", "q"} {
		if res := press(d, k); !res.Close {
			t.Fatalf("%s does not close the help", k)
		}
	}
	d.SetHeight(500)
	if _, keys := d.View(theme, keyMap, 76); !strings.Contains(keys, "all shown") {
		t.Fatalf("a help that fits: %s", keys)
	}
}

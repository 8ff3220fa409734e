package dialog

import (
	"reflect"
	"testing"

	"reasonixctl/core"
	"reasonixctl/tui/intent"
)

// y sends the request, carries out the action or quits; n and esc close and do nothing.
func TestConfirmAsksThenDoes(t *testing.T) {
	req := core.Cancel{TaskID: "t"}
	if res := press(NewConfirm("Cancel t?", "", req), "y"); !res.Close || res.Control == nil || !reflect.DeepEqual(res.Control, core.Command(req)) {
		t.Fatalf("y: %+v", res)
	}
	res := press(NewConfirmAction("Suspend?", "", intent.Suspend{}), "y")
	if _, ok := res.Do.(intent.Suspend); !ok || !res.Close || res.Control != nil {
		t.Fatalf("y on an action: %+v", res)
	}
	if res := press(NewQuitConfirm("Quit?", ""), "y"); !res.Quit || !res.Close {
		t.Fatalf("y on quit: %+v", res)
	}
	for _, k := range []string{"n", "esc"} {
		if res := press(NewConfirm("Cancel t?", "", req), k); !res.Close || res.Control != nil || res.Quit {
			t.Fatalf("%s: %+v", k, res)
		}
	}
	if res := press(NewConfirm("Cancel t?", "", req), "x"); !reflect.DeepEqual(res, intent.Result{}) {
		t.Fatalf("x: %+v", res)
	}
	if got := keyLine(NewConfirm("Cancel t?", "", req), 80); got != "y yes · n/esc no" {
		t.Fatalf("key line %q", got)
	}
	d := NothingToFinalize("t")
	requireView(t, d, 80, "Nothing to finalize in t", "Close the task?")
	if res := press(d, "y"); res.Control == nil || res.Control.Action() != core.ActionClose {
		t.Fatalf("y on nothing to finalize: %+v", res)
	}
}

// A notice with a command copies it with y; one without says there is nothing to copy.
func TestNoticeCopiesItsCommand(t *testing.T) {
	n := CommitNotice("login-fix", "abc123", "reasonix/login-fix", "")
	requireView(t, n, 80, "Committed login-fix", "git cherry-pick abc123", "esc close · y copy the command")
	res := press(n, "y")
	if a, ok := res.Do.(intent.Copy); !ok || a.Text != "git cherry-pick abc123" || res.Close {
		t.Fatalf("y in a notice with a command: %+v", res)
	}
	plain := NewNotice("Done", "all good")
	if res := press(plain, "y"); !reflect.DeepEqual(res, intent.Result{}) {
		t.Fatalf("y in a notice without a command: %+v", res)
	}
	requireView(t, plain, 80, "nothing to copy here")
	requireNotInView(t, plain, 80, "copy the command")
	for _, k := range []string{"esc", "enter", "q"} {
		if res := press(NewNotice("Done"), k); !res.Close {
			t.Fatalf("%s does not close a notice", k)
		}
	}
}

// An error notice's advice gives way to the root's when it says so (an attached dashboard
// whose owner is gone); a notice that tells no error keeps its lines.
func TestErrorNoticeTakesTheRootsNextStep(t *testing.T) {
	err := core.Errorf(core.CodeReasonixUnavailable, nil, "the owner exited")
	n := ErrorNotice("cancel t failed", err)
	requireView(t, n, 80, "reasonix_unavailable: the owner exited", "reasonixctl doctor")
	if !n.TellsError() {
		t.Fatal("an error notice says it tells no error")
	}
	n.NextInstead("Start an owner, then try again.")
	requireView(t, n, 80, "Next: Start an owner, then try again.")
	requireNotInView(t, n, 80, "doctor")
	n.AddLines("", "Your message, not sent: hi")
	requireView(t, n, 80, "Your message, not sent: hi")

	f := Failure("Cannot apply t", "dirty checkout")
	if f.TellsError() {
		t.Fatal("a failure without an error says it tells one")
	}
	f.NextInstead("ignored")
	requireNotInView(t, f, 80, "ignored")
}

package dialog

import (
	"testing"

	"reasonixctl/core"
	"reasonixctl/tui/intent"
)

// enter sends the message to a running task and the dialog waits for core's answer; while it
// waits, enter sends nothing more and the text cannot change.
func TestSteerSendsAndWaits(t *testing.T) {
	d := NewSteer(core.TaskView{TaskID: "t", State: core.StateRunning})
	requireView(t, d, 80, "Steer t", "The message reaches the worker during its current turn.", "enter send · esc cancel")
	if res := press(d, "enter"); res.Control != nil {
		t.Fatalf("an empty message was sent: %+v", res)
	}
	requireView(t, d, 80, "the message is empty")
	typeText(d, "use the house style")
	res := press(d, "ctrl+s")
	if res.Control == nil || res.Control != core.Command(core.Steer{TaskID: res.Control.Task(), Message: "use the house style"}) || res.Close {
		t.Fatalf("ctrl+s: %+v", res)
	}
	if !d.Sending() {
		t.Fatal("the dialog does not wait for core")
	}
	requireView(t, d, 80, "sending…")
	if res := press(d, "enter"); res.Control != nil {
		t.Fatalf("enter while sending sent again: %+v", res)
	}
	typeText(d, "!")
	if d.Text() != "use the house style" {
		t.Fatalf("the text changed while sending: %q", d.Text())
	}
	d.Refused([]string{"invalid_state: between turns"})
	requireView(t, d, 80, "Not sent: invalid_state: between turns", "Your message is kept")
	if d.Sending() {
		t.Fatal("a refused message is still sending")
	}
	if res := press(d, "esc"); !res.Close {
		t.Fatal("esc does not close")
	}
}

// The dialog follows the task: a wait for the person's answer turns enter into opening the
// request, review into a repair round, and an ended task into a refusal that keeps the text.
func TestSteerFollowsTheTask(t *testing.T) {
	d := NewSteer(core.TaskView{TaskID: "t", State: core.StateRunning})
	typeText(d, "one more thing")
	d.Follow(core.TaskView{TaskID: "t", State: core.StateWaitingPermission})
	requireView(t, d, 80, "The task moved on while you typed.", "t waits for your answer to a permission request",
		"enter answer the request first")
	if res := press(d, "enter"); res.Do != (intent.OpenRequest{TaskID: "t"}) || res.Control != nil {
		t.Fatalf("enter while the task waits: %+v", res)
	}

	res := d.Resubmit(core.TaskView{TaskID: "t", State: core.StatePaused})
	if res.Control != nil {
		t.Fatalf("a message went to a paused task: %+v", res)
	}
	requireView(t, d, 80, "Not sent: steer needs a running task or one in review; t is paused", "one more thing")

	d.Follow(core.TaskView{TaskID: "t", State: core.StateReviewRequired, ReviewRevision: 1})
	requireView(t, d, 80, "Repair round 1/2 for t", "Say what to fix.")
	if res := d.Resubmit(core.TaskView{TaskID: "t", State: core.StateReviewRequired, ReviewRevision: 1}); res.Control == nil {
		t.Fatalf("the repair round was not sent: %+v", res)
	}
}

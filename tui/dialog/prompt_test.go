package dialog

import (
	"reflect"
	"strings"
	"testing"

	"reasonixctl/core"
)

func respond(id, decision, option, answer string) core.Respond {
	return core.Respond{TaskID: "t", InteractionID: id, Decision: decision, OptionID: option, Answer: answer}
}

// A permission is answered by its own keys only: a, S where offered, R for a command the
// policy asks about, d; enter never allows, and a key it does not take says why.
func TestPromptPermissionKeys(t *testing.T) {
	grant := respond("ia-1", core.DecisionAllow, "", "")
	grant.Grant = true
	for _, c := range []struct {
		key  string
		want core.Command
	}{
		{"a", respond("ia-1", core.DecisionAllow, "", "")},
		{"S", respond("ia-1", core.DecisionAllow, "allow-always", "")},
		{"R", grant},
		{"d", respond("ia-1", core.DecisionDeny, "", "")},
	} {
		res := press(NewPrompt("t", permissionIA("ia-1"), "", 0), c.key)
		if !res.Close || !reflect.DeepEqual(res.Control, c.want) {
			t.Errorf("%s: %+v", c.key, res)
		}
	}
	d := NewPrompt("t", permissionIA("ia-1"), "", 0)
	if got := keyLine(d, 100); got != "a allow once · S allow for session · R allow for repo · d deny · esc later · ? help" {
		t.Fatalf("key line %q", got)
	}
	for k, why := range map[string]string{
		"enter": "enter does not answer: a allows once, d denies",
		"2":     "a permission: a allows once, d denies",
		"t":     "a permission: a allows once, d denies",
	} {
		if res := press(d, k); res.Control != nil || res.Close {
			t.Fatalf("%s answered a permission: %+v", k, res)
		}
		requireView(t, d, 100, why)
	}
	if res := press(d, "esc"); !res.Close || !res.Later || res.Control != nil {
		t.Fatalf("esc: %+v", res)
	}

	// No session option, and a request the policy did not ask about: S and R say why.
	edit := permissionIA("ia-2")
	edit.Request.Tool, edit.Request.Argv, edit.Request.Code, edit.Request.Options = "edit", nil, "outside_write_scope", nil
	d = NewPrompt("t", edit, "", 0)
	requireNotInView(t, d, 100, "allow for repo")
	requireNotInView(t, d, 100, "allow for session")
	press(d, "S")
	requireView(t, d, 100, "the worker offered no session-wide allow for this request")
	press(d, "R")
	requireView(t, d, 100, "only a command the policy asks about can be allowed for the repository")
	press(d, "x")
	requireNotInView(t, d, 100, "only a command")
}

// A question's option is selected with a digit or the arrows and answered with enter; a digit
// alone never answers; t types an answer.
func TestPromptQuestionKeys(t *testing.T) {
	d := NewPrompt("t", questionIA("q-1"), "I will read the login code first.", 1)
	requireView(t, d, 100, "The worker asks", "· 1 more waiting", "agent I will read the login code first.",
		"1 ErrEmptyUser", "2 ErrNoUser", "1-9 select · ↑/↓ select · t type answer · d deny · esc later")
	press(d, "enter")
	requireView(t, d, 100, "select an option first (1-2 or ↑/↓), then enter")
	press(d, "a")
	requireView(t, d, 100, "a question: select an option, or t types a reply")
	press(d, "3")
	requireView(t, d, 100, "there is no option 3")
	if res := press(d, "2"); res.Control != nil {
		t.Fatalf("a digit answered: %+v", res)
	}
	requireView(t, d, 100, "› 2 ErrNoUser", "enter answer 2")
	press(d, "down")
	requireView(t, d, 100, "› 1 ErrEmptyUser", "enter answer 1")
	press(d, "up")
	if res := press(d, "enter"); !reflect.DeepEqual(res.Control, respond("q-1", core.DecisionAllow, "o2", "")) {
		t.Fatalf("enter with option 2: %+v", res)
	}

	d = NewPrompt("t", questionIA("q-1"), "", 0)
	press(d, "t")
	if !d.Capturing() {
		t.Fatal("t does not take a typed answer")
	}
	requireView(t, d, 100, "answer", "enter send · esc back")
	press(d, "enter")
	requireView(t, d, 100, "type an answer first, or esc to go back")
	typeText(d, "ErrBlankUser")
	if res := press(d, "enter"); !reflect.DeepEqual(res.Control, respond("q-1", core.DecisionAllow, "", "ErrBlankUser")) {
		t.Fatalf("a typed answer: %+v", res)
	}
	press(d, "esc")
	if d.Capturing() {
		t.Fatal("esc does not leave the typed answer")
	}
	if res := press(d, "d"); !reflect.DeepEqual(res.Control, respond("q-1", core.DecisionDeny, "", "")) {
		t.Fatalf("d on a question: %+v", res)
	}

	bare := questionIA("q-2")
	bare.Request.Options = nil
	d = NewPrompt("t", bare, "", 0)
	press(d, "enter")
	requireView(t, d, 100, "this question has no options: t types a reply")
}

// What the worker sends is sanitized: no control reaches the view, and its last words are cut
// to their end.
func TestPromptSanitizesTheWorkersWords(t *testing.T) {
	ia := permissionIA("ia-1")
	ia.Request.Argv = []string{"make", "\x1b]52;c;aGk=\x07lint\u202e"}
	d := NewPrompt("t", ia, strings.Repeat("word ", 100)+"the end.", 0)
	v := view(d, 100)
	if strings.ContainsAny(v, "\x1b\x07\u202e") {
		t.Fatalf("control reached the view: %q", v)
	}
	requireView(t, d, 100, "⟨U+202E⟩", "…word", "the end.")
	if d.Refuse("keys that arrive together never answer"); !strings.Contains(view(d, 100), "keys that arrive together never answer") {
		t.Fatal("the gate's refusal is not shown")
	}
	if d.TaskID() != "t" || d.Interaction().ID != "ia-1" || d.LastWords() == "" {
		t.Fatal("accessors")
	}
	d.SetLastWords("later words")
	requireView(t, d, 100, "agent later words")
}

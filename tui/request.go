package tui

import (
	"fmt"
	"strings"

	"reasonixctl/core"
)

// promptOption is one answer a worker offers.
type promptOption struct {
	ID, Name, Kind string // Kind: allow_once | allow_always | reject_once | reject_always | "" for plain choices
}

// promptRequest is what a person needs to answer an interaction. The engine stores the request as
// an open JSON object, so this reads the usual key spellings and tolerates missing ones.
type promptRequest struct {
	Kind     string // permission | input
	Tool     string
	Title    string
	Argv     []string
	Cwd      string
	Paths    []string
	Question string
	Options  []promptOption
	FreeText bool
	Code     string
	Reason   string
	Hint     string
}

func parseRequest(ia core.Interaction) promptRequest {
	r := ia.Request
	p := promptRequest{Kind: ia.Kind}
	tc, _ := r["toolCall"].(map[string]any)
	if tc == nil {
		tc, _ = r["tool_call"].(map[string]any)
	}
	meta := map[string]any{}
	if tc != nil {
		if m, ok := tc["_meta"].(map[string]any); ok {
			if rm, ok := m["reasonix.io"].(map[string]any); ok {
				meta = rm
			}
		}
	}
	p.Tool = firstString(r, "tool", "tool_kind", "toolKind")
	if p.Tool == "" {
		p.Tool = firstString(meta, "tool")
	}
	if p.Tool == "" && tc != nil {
		p.Tool = firstString(tc, "kind")
	}
	p.Title = firstString(r, "title", "subject")
	if p.Title == "" && tc != nil {
		p.Title = firstString(tc, "title")
	}
	p.Argv = firstStrings(r, "argv", "command")
	if len(p.Argv) == 0 {
		p.Argv = firstStrings(meta, "argv")
	}
	p.Cwd = firstString(r, "cwd")
	if p.Cwd == "" {
		p.Cwd = firstString(meta, "cwd")
	}
	p.Paths = firstStrings(r, "paths", "locations")
	p.Question = firstString(r, "question", "prompt", "message", "text")
	p.Code = firstString(r, "code", "policy_code", "policyCode")
	p.Reason = firstString(r, "reason", "why", "policy_reason", "policyReason")
	p.Hint = firstString(r, "hint")
	p.FreeText = firstBool(r, "free_text", "freeText", "allow_free_text", "allowFreeText", "allow_answer")
	opts, _ := r["options"].([]any)
	for _, o := range opts {
		switch v := o.(type) {
		case map[string]any:
			p.Options = append(p.Options, promptOption{
				ID:   firstString(v, "optionId", "option_id", "id"),
				Name: firstString(v, "name", "label", "title"),
				Kind: firstString(v, "kind"),
			})
		case string:
			p.Options = append(p.Options, promptOption{ID: v, Name: v})
		}
	}
	if p.Kind == "" {
		p.Kind = core.InteractionPermission
	}
	return p
}

// sessionOption is the "allow for the session" option, when the worker offered one.
func (p promptRequest) sessionOption() (promptOption, bool) {
	for _, o := range p.Options {
		if o.Kind == "allow_always" {
			return o, true
		}
	}
	return promptOption{}, false
}

// choices are the options a person picks by number: for a question every option, for a
// permission none (those are answered with allow / session / deny keys).
func (p promptRequest) choices() []promptOption {
	if p.Kind != core.InteractionInput {
		return nil
	}
	return p.Options
}

type requestDescription struct{ what, why string }

func describeRequest(p promptRequest) requestDescription {
	var d requestDescription
	switch {
	case p.Question != "":
		d.what = p.Question
	case len(p.Argv) > 0:
		d.what = strings.Join(p.Argv, " ")
	case p.Title != "":
		d.what = p.Title
	default:
		d.what = strings.Join(p.Paths, " ")
	}
	d.why = strings.TrimSpace(p.Code + " " + p.Reason)
	return d
}

func (d requestDescription) summary() string {
	if d.why == "" {
		return d.what
	}
	return fmt.Sprintf("%s (%s)", d.what, d.why)
}

func firstString(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := m[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

func firstStrings(m map[string]any, keys ...string) []string {
	for _, k := range keys {
		switch v := m[k].(type) {
		case []string:
			if len(v) > 0 {
				return v
			}
		case []any:
			var out []string
			for _, x := range v {
				switch s := x.(type) {
				case string:
					out = append(out, s)
				case map[string]any:
					if p := firstString(s, "path"); p != "" {
						out = append(out, p)
					}
				}
			}
			if len(out) > 0 {
				return out
			}
		}
	}
	return nil
}

func firstBool(m map[string]any, keys ...string) bool {
	for _, k := range keys {
		if b, ok := m[k].(bool); ok {
			return b
		}
	}
	return false
}

package words

import (
	"fmt"
	"reasonixctl/core"
	"reasonixctl/core/safetext"
	"strconv"
	"unicode/utf8"
)

// AnswerText says what an answer chose, in the person's terms: "allow once", `option 2
// "Multiply"`, a typed answer in quotes. A question's answer never reads "allow".
func AnswerText(ia core.Interaction, decision, optionID, answer string, grant bool) string {
	r := ia.Request
	if decision == core.DecisionDeny {
		if ia.Kind == core.InteractionInput {
			return "declined to answer"
		}
		return "deny"
	}
	if answer != "" {
		return strconv.Quote(Clip(safetext.Line(answer), 60))
	}
	if ia.Kind == core.InteractionInput {
		for i, o := range r.Options {
			if o.OptionID == optionID {
				return fmt.Sprintf("option %d %s", i+1, strconv.Quote(Clip(safetext.Line(o.Name), 60)))
			}
		}
		if optionID != "" {
			return "option " + strconv.Quote(Clip(safetext.Line(optionID), 40))
		}
		return "answered"
	}
	switch {
	case grant:
		return "allow this command for the repository"
	case optionID != "":
		for _, o := range r.Options {
			if o.OptionID != optionID {
				continue
			}
			switch o.Kind {
			case core.OptionAllowAlways:
				return "allow for the session"
			case core.OptionAllowOnce:
				return "allow once"
			}
		}
		return "allow (" + Clip(safetext.Line(optionID), 40) + ")"
	}
	return "allow once"
}

// ResponseText describes an answer recorded by the engine.
func ResponseText(ia core.Interaction) string {
	r := ia.Response
	if r == nil {
		return "no answer"
	}
	return AnswerText(ia, r.Decision, r.OptionID, r.Answer, r.Grant != "")
}

// AnsweredBy names who gave a recorded answer that this dashboard did not send.
func AnsweredBy(r *core.InteractionResponse) string {
	if r == nil {
		return "someone else"
	}
	switch r.By {
	case core.ByCodex:
		return MCPClient(r.Client)
	case core.ByAskedUser:
		return "the form shown through " + MCPClient(r.Client)
	case core.BySupervisor:
		return "another dashboard"
	case core.ByGrant:
		return "a standing grant"
	case core.ByPolicy:
		return "the policy"
	}
	return "someone else"
}

// MCPClient names the MCP client an answer came through, as it named itself.
func MCPClient(name string) string {
	if name == "" {
		return "an MCP client"
	}
	return safetext.Line(name)
}

// Clip shortens s to n runes, marking the cut.
func Clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

package mockllm

import (
	"encoding/json"
	"fmt"
	"os"
)

// Script is the whole behaviour of the mock model.
type Script struct {
	Scenarios []Scenario `json:"scenarios"`
	// Default answers requests whose user messages carry no scenario token; nil means an echo
	// of the latest user message ("mock reply: …").
	Default *Step `json:"default,omitempty"`
	// Aside answers every request that offers the model no tools: the side calls agents make
	// besides the turn (a session title, a model-routing, next-speaker or loop check). Such a
	// call may quote the prompt, scenario token and all, and must neither take a scenario's step
	// nor get a tool call it cannot run. nil leaves those requests to the scenarios, as scripts
	// for Reasonix, which makes no side calls, have them.
	Aside *Step `json:"aside,omitempty"`
	// AsideJSON answers the side calls that ask for a JSON answer (Gemini's structured
	// generationConfig, OpenAI's response_format or text.format); nil leaves them to Aside.
	AsideJSON *Step `json:"aside_json,omitempty"`
}

// ChecksJSON is one JSON object that passes each structured check Gemini CLI makes between
// rounds (model routing, next speaker, loop detection) with the answer that lets the turn end:
// the user speaks next, nothing is stuck, the cheap model is fine.
const ChecksJSON = `{"reasoning":"mock","next_speaker":"user","model_choice":"flash","complexity_reasoning":"mock",` +
	`"complexity_score":1,"is_stuck":false,"unproductive_state_detected":false,"confidence":0}`

// WithAsides returns s with the side calls answered the way every agent copes with: a short
// title for plain ones, ChecksJSON for those asking for JSON. Steps already set stay.
func (s Script) WithAsides() Script {
	if s.Aside == nil {
		s.Aside = &Step{Text: "Mock title"}
	}
	if s.AsideJSON == nil {
		s.AsideJSON = &Step{Text: ChecksJSON}
	}
	return s
}

// Scenario is chosen when its Match token occurs, as a whole token, in a user message.
type Scenario struct {
	Match string `json:"match"`
	Steps []Step `json:"steps"`
	// After answers rounds past the last step; nil means a short "finished" text.
	After *Step `json:"after,omitempty"`
}

// Step is one model round: what is streamed back and how.
type Step struct {
	Text      string     `json:"text,omitempty"`
	Reasoning string     `json:"reasoning,omitempty"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// Chunks is how many pieces Text and Reasoning are each split into (0 means 4).
	Chunks       int `json:"chunks,omitempty"`
	ChunkDelayMS int `json:"chunk_delay_ms,omitempty"`
	// DelayMS is waited before anything is sent.
	DelayMS int `json:"delay_ms,omitempty"`
	// HTTPStatus, when set, answers with that status and a JSON error body instead of a completion.
	HTTPStatus int `json:"http_status,omitempty"`
	// Error is the message of that error body.
	Error string `json:"error,omitempty"`
}

// ToolCall is one tool call the model makes, named as the agent being driven names its tool
// ("Write" for Claude, "write_file" for Gemini CLI, "apply_patch" for Codex): scripts are written
// per agent, and each dialect only changes how the call is framed. Arguments is encoded as JSON
// unless it is already a string; a string is sent as it is, JSON text for a function tool or the
// raw input of a Responses custom tool (Codex's apply_patch takes the patch itself).
type ToolCall struct {
	Name      string `json:"name"`
	Arguments any    `json:"arguments"`
	// ID overrides the generated id: "call_mock_<seq>_<index>", "toolu_mock_<seq>_<index>" for
	// Anthropic, none for Gemini (its API sends none; Gemini CLI makes its own).
	ID string `json:"id,omitempty"`
}

// ScriptError reports an invalid script; Scenario and Step are -1 when not relevant.
type ScriptError struct {
	Scenario int
	Step     int
	Reason   string
}

func (e *ScriptError) Error() string {
	switch {
	case e.Scenario < 0:
		return "mockllm: script: " + e.Reason
	case e.Step < 0:
		return fmt.Sprintf("mockllm: script: scenario %d: %s", e.Scenario, e.Reason)
	}
	return fmt.Sprintf("mockllm: script: scenario %d step %d: %s", e.Scenario, e.Step, e.Reason)
}

// LoadScript reads a script from a JSON file and validates it.
func LoadScript(path string) (*Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("mockllm: %w", err)
	}
	var s Script
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, &ScriptError{Scenario: -1, Step: -1, Reason: fmt.Sprintf("%s: %v", path, err)}
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// Validate reports the first problem in the script.
func (s *Script) Validate() error {
	for _, top := range []struct {
		name string
		step *Step
	}{{"default", s.Default}, {"aside", s.Aside}, {"aside_json", s.AsideJSON}} {
		if top.step == nil {
			continue
		}
		if r := top.step.problem(); r != "" {
			return &ScriptError{Scenario: -1, Step: -1, Reason: top.name + ": " + r}
		}
	}
	for i, sc := range s.Scenarios {
		if sc.Match == "" {
			return &ScriptError{Scenario: i, Step: -1, Reason: "empty match"}
		}
		for j, st := range sc.Steps {
			if r := st.problem(); r != "" {
				return &ScriptError{Scenario: i, Step: j, Reason: r}
			}
		}
		if sc.After != nil {
			if r := sc.After.problem(); r != "" {
				return &ScriptError{Scenario: i, Step: -1, Reason: "after: " + r}
			}
		}
	}
	return nil
}

func (st *Step) problem() string {
	switch {
	case st.Chunks < 0:
		return "negative chunks"
	case st.ChunkDelayMS < 0 || st.DelayMS < 0:
		return "negative delay"
	case st.HTTPStatus != 0 && (st.HTTPStatus < 100 || st.HTTPStatus > 599):
		return fmt.Sprintf("http_status %d out of range", st.HTTPStatus)
	}
	for k, tc := range st.ToolCalls {
		if tc.Name == "" {
			return fmt.Sprintf("tool call %d has no name", k)
		}
		if _, err := tc.argumentsJSON(); err != nil {
			return fmt.Sprintf("tool call %d: arguments: %v", k, err)
		}
	}
	return ""
}

func (tc ToolCall) argumentsJSON() (string, error) {
	switch a := tc.Arguments.(type) {
	case string:
		return a, nil
	case nil:
		return "{}", nil
	case json.RawMessage:
		return string(a), nil
	}
	b, err := json.Marshal(tc.Arguments)
	return string(b), err
}

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

// ToolCall is one function call the model makes. Arguments is encoded as JSON unless it is
// already a string.
type ToolCall struct {
	Name      string `json:"name"`
	Arguments any    `json:"arguments"`
	// ID overrides the generated "call_mock_<seq>_<index>" id.
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
	if s.Default != nil {
		if r := s.Default.problem(); r != "" {
			return &ScriptError{Scenario: -1, Step: -1, Reason: "default: " + r}
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

package acptest

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// Scenario scripts what the fake worker does in each prompt turn of a session.
type Scenario struct {
	Name string `json:"name,omitempty"`
	// Turns are the per-prompt scripts. A turn with a Match is played whenever the prompt text
	// contains it (so a repair or follow-up prompt can get its own script); the turns without
	// one are played in order, one per other prompt.
	Turns []Turn `json:"turns"`
	// After is played for prompts past the last turn; nil means a short text answer.
	After *Turn `json:"after,omitempty"`
}

// Turn is the script of one prompt turn.
type Turn struct {
	Match string `json:"match,omitempty"`
	Steps []Step `json:"steps"`
	// OnSteer is played at the next step boundary after each steer the turn receives.
	OnSteer []Step `json:"on_steer,omitempty"`
	// Summary is finalReadiness.summary at the end of the turn; empty means the last text sent.
	Summary string `json:"summary,omitempty"`
	// NotReady leaves finalReadiness.readyForReview false when the turn completes.
	NotReady bool `json:"not_ready,omitempty"`
}

// Step is one action of a turn. Exactly one action field is set; DelayMS may accompany any.
type Step struct {
	// Text is sent as agent_message_chunk updates ("{{steer}}" becomes the latest steer text).
	Text string `json:"text,omitempty"`
	// Thought is sent as agent_thought_chunk updates.
	Thought string `json:"thought,omitempty"`
	// Chunks splits Text or Thought into that many updates (0 means 2).
	Chunks int `json:"chunks,omitempty"`

	Plan  []PlanEntry `json:"plan,omitempty"`
	Write *WriteFile  `json:"write,omitempty"`
	Edit  *EditFile   `json:"edit,omitempty"`
	Read  string      `json:"read,omitempty"`
	Shell *Shell      `json:"shell,omitempty"`
	Ask   *Question   `json:"ask,omitempty"`
	Usage *Usage      `json:"usage,omitempty"`

	// WaitSteer blocks until the turn has received a steer (or is cancelled).
	WaitSteer bool `json:"wait_steer,omitempty"`
	// Hang blocks until the turn is cancelled.
	Hang bool `json:"hang,omitempty"`
	// Freeze stops the worker answering anything at all, cancel included, until its input ends.
	Freeze bool `json:"freeze,omitempty"`
	// Crash ends the worker at once.
	Crash *Crash `json:"crash,omitempty"`
	// Flood sends that many agent_message_chunk updates as fast as possible.
	Flood int `json:"flood,omitempty"`
	// FloodKind "tool_call" floods with finished tool calls instead, which a client cannot
	// merge the way it merges text chunks.
	FloodKind string `json:"flood_kind,omitempty"`
	// FloodBytes pads each flooded tool call's title to that many bytes.
	FloodBytes int `json:"flood_bytes,omitempty"`
	// Garbage is written to the output as one raw line (malformed JSON, usually).
	Garbage string `json:"garbage,omitempty"`
	// Fail ends the turn with a JSON-RPC error for the prompt, like a failed model call.
	Fail string `json:"fail,omitempty"`
	// Spawn starts the command with /bin/sh -c in the session's cwd and does not wait for it:
	// it stays in the worker's process group after the turn, as a watcher or server a real
	// worker leaves running would. Nothing is reported to the client.
	Spawn string `json:"spawn,omitempty"`

	DelayMS int `json:"delay_ms,omitempty"`
	// Permission overrides whether a write, edit or shell step asks: "" follows the worker's
	// policy for the session's tool_approval, "ask" always asks, "never" never does.
	Permission string `json:"permission,omitempty"`
}

// PlanEntry is one todo item; Status is pending, in_progress or completed.
type PlanEntry struct {
	Content string `json:"content"`
	Status  string `json:"status"`
}

// WriteFile creates or replaces a file inside the session cwd.
type WriteFile struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// EditFile replaces the single occurrence of Old with New in a file inside the session cwd.
type EditFile struct {
	Path string `json:"path"`
	Old  string `json:"old"`
	New  string `json:"new"`
}

// Shell is a shell command. The fake never runs it: Output is its scripted result, and a
// non-zero ExitCode makes the tool call fail.
type Shell struct {
	Command  string `json:"command"`
	Output   string `json:"output,omitempty"`
	ExitCode int    `json:"exit_code,omitempty"`
}

// Question is an `ask` tool call: one multiple-choice question for the user.
type Question struct {
	Header   string   `json:"header,omitempty"`
	Question string   `json:"question"`
	Options  []Choice `json:"options"`
}

// Choice is one answer to a Question.
type Choice struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// Usage adds token counts to the session's usage and reports them.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// Crash ends the worker: the fake-reasonix command writes Stderr and exits with ExitCode
// (0 is taken as 1: a crash is never a clean exit).
type Crash struct {
	ExitCode int    `json:"exit_code,omitempty"`
	Stderr   string `json:"stderr,omitempty"`
}

// ScenarioError reports an invalid scenario; Turn and Step are -1 when not relevant.
type ScenarioError struct {
	Turn   int
	Step   int
	Reason string
}

func (e *ScenarioError) Error() string {
	switch {
	case e.Turn < 0:
		return "acptest: scenario: " + e.Reason
	case e.Step < 0:
		return fmt.Sprintf("acptest: scenario: turn %d: %s", e.Turn, e.Reason)
	}
	return fmt.Sprintf("acptest: scenario: turn %d step %d: %s", e.Turn, e.Step, e.Reason)
}

// LoadScenario reads a scenario from a JSON file; unknown fields are errors, so a typo cannot
// silently turn a step into a no-op.
func LoadScenario(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("acptest: %w", err)
	}
	return ParseScenario(data)
}

// ParseScenario decodes and validates a JSON scenario.
func ParseScenario(data []byte) (*Scenario, error) {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	var s Scenario
	if err := dec.Decode(&s); err != nil {
		return nil, &ScenarioError{Turn: -1, Step: -1, Reason: err.Error()}
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// Validate reports the first problem in the scenario.
func (s *Scenario) Validate() error {
	turns := s.Turns
	if s.After != nil {
		turns = append(append([]Turn(nil), turns...), *s.After)
	}
	for i, t := range turns {
		for j, st := range append(append([]Step(nil), t.Steps...), t.OnSteer...) {
			if r := st.problem(); r != "" {
				return &ScenarioError{Turn: i, Step: j, Reason: r}
			}
		}
	}
	return nil
}

func (st *Step) problem() string {
	actions := 0
	for _, set := range []bool{st.Text != "", st.Thought != "", st.Plan != nil, st.Write != nil, st.Edit != nil,
		st.Read != "", st.Shell != nil, st.Ask != nil, st.Usage != nil, st.WaitSteer, st.Hang, st.Freeze,
		st.Crash != nil, st.Flood != 0, st.Garbage != "", st.Fail != "", st.Spawn != ""} {
		if set {
			actions++
		}
	}
	switch {
	case actions > 1:
		return "more than one action in a step"
	case actions == 0 && st.DelayMS == 0:
		return "step has no action"
	case st.FloodBytes != 0 && (st.FloodBytes < 0 || st.FloodKind != "tool_call"):
		return "flood_bytes needs a tool_call flood and must not be negative"
	case st.DelayMS < 0 || st.Chunks < 0 || st.Flood < 0:
		return "negative delay, chunks or flood"
	case st.FloodKind != "" && (st.Flood == 0 || st.FloodKind != "tool_call"):
		return fmt.Sprintf("flood_kind %q needs a flood and must be \"tool_call\"", st.FloodKind)
	case st.Permission != "" && st.Permission != "ask" && st.Permission != "never":
		return fmt.Sprintf("permission %q is not \"ask\" or \"never\"", st.Permission)
	case st.Write != nil && st.Write.Path == "", st.Edit != nil && st.Edit.Path == "":
		return "file step without a path"
	case st.Edit != nil && st.Edit.Old == "":
		return "edit without old text"
	case st.Shell != nil && strings.TrimSpace(st.Shell.Command) == "":
		return "shell step without a command"
	case st.Ask != nil && (st.Ask.Question == "" || len(st.Ask.Options) == 0):
		return "ask step needs a question and options"
	}
	for _, e := range st.Plan {
		if e.Status != "pending" && e.Status != "in_progress" && e.Status != "completed" {
			return fmt.Sprintf("plan status %q is not pending, in_progress or completed", e.Status)
		}
	}
	return ""
}

// DefaultScenario is the "implement" scenario: write result.txt (asking first), list the
// directory (asking first), and end the turn ready for review.
func DefaultScenario() *Scenario {
	return &Scenario{
		Name: "implement",
		Turns: []Turn{{
			Steps: []Step{
				{Plan: []PlanEntry{{Content: "Write result.txt", Status: "in_progress"}, {Content: "Check the workspace", Status: "pending"}}},
				{Text: "I'll create result.txt."},
				{Write: &WriteFile{Path: "result.txt", Content: "ok\n"}, Permission: "ask"},
				{Plan: []PlanEntry{{Content: "Write result.txt", Status: "completed"}, {Content: "Check the workspace", Status: "in_progress"}}},
				{Shell: &Shell{Command: "ls", Output: "result.txt\n"}, Permission: "ask"},
				{Plan: []PlanEntry{{Content: "Write result.txt", Status: "completed"}, {Content: "Check the workspace", Status: "completed"}}},
				{Text: "Created result.txt containing ok."},
			},
			Summary: "Created result.txt containing ok.",
		}},
	}
}

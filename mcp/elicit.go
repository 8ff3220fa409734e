package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"reasonixctl/core"
	"reasonixctl/core/safetext"
	"reasonixctl/mcp/internal/jsonrpc"
)

// With Options.AskUser, a command the policy does not know is put to the client's own user as
// an MCP form elicitation instead of being denied at once. The engine keeps the interaction
// open for Codex as well, records the person's answer as theirs, and falls back to the
// automatic denial when nobody answers within its ask timeout.
//
// How the form reaches the user depends on the revision the client speaks:
//   - 2025-06-18 and 2025-11-25 (initialize): the server sends elicitation/create as soon as
//     the interaction opens, once the client has sent notifications/initialized.
//   - 2026-07-28 (capabilities in each request's _meta): the server cannot send requests, so
//     a reasonix_delegate call whose task waits on a permission interaction returns
//     resultType "input_required" with the form; the client answers it and calls again with
//     the answer in inputResponses and requestState echoed (inline.go).

// The form's one field and its values.
const (
	elicitField     = "decision"
	elicitAllowOnce = "allow_once"
	elicitDeny      = "deny"
)

// maxElicitCommand bounds the command as shown; the worker's full argv stays in the interaction.
const maxElicitCommand = 2000

// elicitsForms says whether an initialize's client capabilities include form elicitation:
// "elicitation":{} (2025-06-18) or one with "form" (2025-11-25); a client offering only "url"
// cannot show a form.
func elicitsForms(params json.RawMessage) bool {
	var p struct {
		Capabilities struct {
			Elicitation *mcp.ElicitationCapability `json:"elicitation"`
		} `json:"capabilities"`
	}
	// A malformed capability is the client's business; it only means no elicitation.
	if unmarshalParams(params, &p) != nil || p.Capabilities.Elicitation == nil {
		return false
	}
	e := p.Capabilities.Elicitation
	return e.Form != nil || e.URL == nil
}

// askerSlot is a session's asker: installed in the service once both the client (after
// notifications/initialized, or at its first 2026-07-28 call declaring form elicitation) and the
// service (once opened) are ready, removed when the session ends.
type askerSlot struct {
	mu        sync.Mutex
	once      sync.Once
	installed core.Service
	ended     bool

	// Set at initialize when the client can show forms; the asker waits for initialized.
	conn    *jsonrpc.Conn
	version string
	// client is the client's name and version from initialize (clientLabel).
	client string
}

// initialized reports notifications/initialized: a form the client can show may be sent now.
func (c *session) initialized() {
	c.asker.mu.Lock()
	conn, version, client := c.asker.conn, c.asker.version, c.asker.client
	c.asker.conn = nil
	c.asker.mu.Unlock()
	if conn != nil {
		c.install(func() core.Asker { return c.srv.elicitAsker(conn, client, &c.gate, &c.forms, titledEnums(version)) })
	}
}

// Notified implements jsonrpc.NotificationHandler.
func (c *session) Notified(method string, _ json.RawMessage) {
	if method == string(mcp.MethodNotificationInitialized) {
		c.initialized()
	}
}

// titledEnums says whether a form for a client of this revision offers its choices as titled
// oneOf (2025-11-25 and later) rather than enumNames (2025-06-18, deprecated since). Codex
// renders both as a list of choices.
func titledEnums(version string) bool {
	return version != mcp.ProtocolVersion20250618 && version != mcp.ProtocolVersion20241105
}

// answerGate orders a person's answer before the client's next request: a response to
// elicitation/create holds it from the moment it is read until the answer is recorded, and a
// tool call read after that response waits for it. Without it, a client that answers the form
// and at once resumes the task could still find the interaction pending.
type answerGate struct {
	mu   sync.Mutex
	held int
	free chan struct{} // closed when held drops to 0; nil while nothing was held
}

// hold marks an answer as being recorded; release (idempotent) marks it recorded.
func (g *answerGate) hold() (release func()) {
	g.mu.Lock()
	if g.held == 0 {
		g.free = make(chan struct{})
	}
	g.held++
	g.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			g.held--
			if g.held == 0 {
				close(g.free)
			}
			g.mu.Unlock()
		})
	}
}

// wait returns a channel closed once every answer held now is recorded (nil: none is held).
func (g *answerGate) wait() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.held == 0 {
		return nil
	}
	return g.free
}

// openForms are the forms this session's client shows now, by task and interaction: a
// reasonix_delegate call that would return because its task waits on one of them waits for the
// person's answer instead (it is what the call is waiting for, and the client shows the form
// while the call runs).
type openForms struct {
	mu sync.Mutex
	m  map[string]chan struct{}
}

// open records a form shown; done (idempotent) records that it was answered and the answer
// recorded, or withdrawn. A done form stays known (its channel closed): a delegate call whose
// result was taken just before the answer then resumes at once instead of returning it.
func (f *openForms) open(task, interaction string) (done func()) {
	if f == nil {
		return func() {}
	}
	key := questionKey(task, interaction)
	ch := make(chan struct{})
	f.mu.Lock()
	if f.m == nil {
		f.m = map[string]chan struct{}{}
	}
	f.m[key] = ch
	f.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() { close(ch) })
	}
}

// shown returns a channel closed once the form for the interaction is done, or nil when no form
// was shown for it.
func (f *openForms) shown(task, interaction string) <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.m[questionKey(task, interaction)]
}

// install installs the session's Asker (the first one offered), now or when the service opens.
func (c *session) install(newAsker func() core.Asker) {
	c.asker.once.Do(func() {
		ask := newAsker()
		c.srv.service.whenOpen(func(svc core.Service) {
			c.asker.mu.Lock()
			defer c.asker.mu.Unlock()
			if c.asker.ended {
				return
			}
			svc.SetAsker(ask)
			c.asker.installed = svc
			c.srv.log.Info("unknown commands are asked of the client's user through elicitation")
		})
	})
}

// end removes the session's asker: nobody is left to answer an elicitation.
func (s *askerSlot) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ended = true
	if s.installed != nil {
		s.installed.SetAsker(nil)
		s.installed = nil
	}
}

// elicitAsker asks the client's user about a permission interaction and returns their answer
// as given: an accepted allow_once allows, an accepted deny denies, a decline or a cancel
// denies as such. A JSON-RPC error, a malformed result or ctx ending (answered elsewhere, timed
// out, session over) returns an error: the engine then falls back to the automatic denial.
// The answer is recorded (q.Record) before the client's next request is served (gate).
func (s *Server) elicitAsker(conn *jsonrpc.Conn, client string, gate *answerGate, forms *openForms, titled bool) core.Asker {
	return func(ctx context.Context, q core.Question) (core.InteractionResponse, error) {
		if q.Interaction.Kind != core.InteractionPermission {
			return core.InteractionResponse{}, fmt.Errorf("only permission requests are elicited, not %q", q.Interaction.Kind)
		}
		done := forms.open(q.TaskID, q.Interaction.ID)
		defer done() // after the answer is recorded
		var release func()
		raw, err := conn.CallNotify(ctx, string(mcp.MethodElicitationCreate), elicitationParams(q, titled), func() {
			if gate != nil {
				release = gate.hold()
			}
		})
		if release != nil {
			defer release()
		}
		if err != nil {
			s.log.Info("elicitation gave no answer", "task", q.TaskID, "interaction", q.Interaction.ID, "err", err)
			return core.InteractionResponse{}, err
		}
		resp, err := elicitedAnswer(raw, q.Interaction.Request)
		if err != nil {
			s.log.Info("elicitation answered unusably", "task", q.TaskID, "interaction", q.Interaction.ID, "err", err)
			return core.InteractionResponse{}, err
		}
		resp.Client = client
		s.log.Info("elicitation answered", "task", q.TaskID, "interaction", q.Interaction.ID, "decision", resp.Decision, "outcome", resp.Outcome, "client", client)
		if q.Record != nil {
			if err := q.Record(resp); err != nil {
				s.log.Info("the answer was not recorded", "task", q.TaskID, "interaction", q.Interaction.ID, "err", err)
			}
		}
		return resp, nil
	}
}

// elicitedAnswer maps an elicitation result onto the person's answer.
func elicitedAnswer(raw json.RawMessage, r core.InteractionRequest) (core.InteractionResponse, error) {
	var res mcp.ElicitationResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return core.InteractionResponse{}, fmt.Errorf("malformed elicitation result: %w", err)
	}
	switch res.Action {
	case mcp.ElicitationResponseActionAccept:
		content, _ := res.Content.(map[string]any)
		switch content[elicitField] {
		case elicitAllowOnce:
			return core.InteractionResponse{Decision: core.DecisionAllow, OptionID: allowOnceOption(r), Outcome: core.OutcomeAnswered}, nil
		case elicitDeny:
			return core.InteractionResponse{Decision: core.DecisionDeny, Outcome: core.OutcomeAnswered}, nil
		}
		return core.InteractionResponse{}, fmt.Errorf("elicitation accepted without a %s of %s or %s: %v", elicitField, elicitAllowOnce, elicitDeny, res.Content)
	case mcp.ElicitationResponseActionDecline:
		return core.InteractionResponse{Decision: core.DecisionDeny, Outcome: core.OutcomeDeclined}, nil
	case mcp.ElicitationResponseActionCancel:
		return core.InteractionResponse{Decision: core.DecisionDeny, Outcome: core.OutcomeCancelled}, nil
	}
	return core.InteractionResponse{}, fmt.Errorf("elicitation answered with unknown action %q", res.Action)
}

// allowOnceOption is the worker's allow-once option; empty lets the engine choose its default
// allow.
func allowOnceOption(r core.InteractionRequest) string {
	for _, o := range r.Options {
		if o.Kind == core.OptionAllowOnce {
			return o.OptionID
		}
	}
	return ""
}

// elicitationParams is the form: the command, where it runs, why the policy asks, and a single
// required choice. The schema keeps to the restricted subset (a flat object of primitives); the
// choice is a titled enum, as titled oneOf for 2025-11-25 and later (titled) or as enumNames,
// the form 2025-06-18 knows.
func elicitationParams(q core.Question, titled bool) mcp.ElicitationParams {
	decision := map[string]any{
		"type":        "string",
		"title":       "Run this command?",
		"description": "Allow it once, or deny it: the worker is then told to find another way.",
	}
	if titled {
		decision["oneOf"] = []map[string]string{
			{"const": elicitAllowOnce, "title": "Allow once"},
			{"const": elicitDeny, "title": "Deny"},
		}
	} else {
		decision["enum"] = []string{elicitAllowOnce, elicitDeny}
		decision["enumNames"] = []string{"Allow once", "Deny"}
	}
	return mcp.ElicitationParams{
		Message: elicitationMessage(q),
		RequestedSchema: map[string]any{
			"type":       "object",
			"properties": map[string]any{elicitField: decision},
			"required":   []string{elicitField},
		},
	}
}

// elicitationMessage is the text of the form a person answers. Every value in it came from the
// worker or the repository, so each is one line of inert text (safetext.Line): no escape
// sequence, line separator (U+2028, U+2029, NEL) or bidi control can draw a line of its own,
// such as a fake "Policy hint:", or reorder the command a person allows.
func elicitationMessage(q core.Question) string {
	r := q.Interaction.Request
	field := func(s string) string { return truncateRunes(safetext.Line(s), maxElicitCommand) }
	var b strings.Builder
	switch {
	case len(r.Argv) > 0:
		fmt.Fprintf(&b, "Reasonix task %s wants to run a command the policy does not know.\n\n", field(q.TaskID))
		fmt.Fprintf(&b, "Command: %s\n", field(core.ShellWords(r.Argv)))
	case r.Tool == "execute" && r.Subject != "":
		// A foreign worker's command that is not plain argv, as it sent it; the title is only
		// the worker's words about it.
		fmt.Fprintf(&b, "Reasonix task %s wants to run a command the policy cannot check.\n\n", field(q.TaskID))
		fmt.Fprintf(&b, "Command: %s\n", field(r.Subject))
		if r.Title != r.Subject {
			fmt.Fprintf(&b, "Request: %s\n", field(r.Title))
		}
	default:
		fmt.Fprintf(&b, "Reasonix task %s asks for something the policy does not know.\n\n", field(q.TaskID))
		fmt.Fprintf(&b, "Request: %s\n", field(r.Title))
	}
	if r.Cwd != "" {
		fmt.Fprintf(&b, "In: %s\n", field(r.Cwd))
	}
	if len(r.Paths) > 0 {
		fmt.Fprintf(&b, "Paths: %s\n", field(strings.Join(r.Paths, ", ")))
	}
	if r.Reason != "" {
		fmt.Fprintf(&b, "Why you are asked: %s\n", field(r.Reason))
	}
	if r.Hint != "" {
		fmt.Fprintf(&b, "Policy hint: %s\n", field(r.Hint))
	}
	if q.Timeout > 0 {
		fmt.Fprintf(&b, "\nWithout an answer within %s the command is denied.", spell(q.Timeout))
	}
	return strings.TrimRight(b.String(), "\n")
}

// spell writes a timeout for a person: "2 minutes", "90 seconds".
func spell(d time.Duration) string {
	plural := func(n int64, unit string) string {
		if n == 1 {
			return "1 " + unit
		}
		return fmt.Sprintf("%d %ss", n, unit)
	}
	switch {
	case d >= time.Minute && d%time.Minute == 0:
		return plural(int64(d/time.Minute), "minute")
	case d >= time.Second:
		return plural(int64(d.Round(time.Second)/time.Second), "second")
	}
	return d.String()
}

func truncateRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

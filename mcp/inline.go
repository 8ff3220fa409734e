package mcp

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"

	"reasonixctl/core"
)

// Revision 2026-07-28 has no requests from server to client (SEP-2322): a call that needs the
// user returns resultType "input_required" with the requests it needs answered and an opaque
// requestState, and the client calls again with its answers in inputResponses and the state
// echoed. With Options.AskUser and a client that declares form elicitation in the call's _meta,
// a reasonix_delegate call whose task waits on a permission interaction returns the form that
// way, and the call that brings the answer records it (as asked_user) before it resumes the
// task. The interaction keeps the engine's ask timeout, and Codex may still answer it with
// reasonix_control respond: the first answer counts.

// modernElicitsForms says whether a 2026-07-28 request's _meta declares form elicitation among
// the client's capabilities (as initialize's capabilities do for earlier revisions).
func modernElicitsForms(params json.RawMessage) bool {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if unmarshalParams(params, &p) != nil {
		return false
	}
	raw := p.Meta[mcp.MetaKeyClientCapabilities]
	return len(raw) > 0 && elicitsForms([]byte(`{"capabilities":`+string(raw)+`}`))
}

// inlineQuestions keeps the questions the engine put to a 2026-07-28 session's asker while they
// wait, so that the form carries what the asker was told (the ask timeout among it).
type inlineQuestions struct {
	mu sync.Mutex
	m  map[string]core.Question // by task and interaction
}

func questionKey(task, interaction string) string { return task + "\x00" + interaction }

// asker is the Asker of a 2026-07-28 session: it cannot send the form, so it only keeps the
// question until the interaction is answered (by the call that brings the form's answer, or
// anyone else) or times out.
func (iq *inlineQuestions) asker(ctx context.Context, q core.Question) (core.InteractionResponse, error) {
	key := questionKey(q.TaskID, q.Interaction.ID)
	iq.mu.Lock()
	if iq.m == nil {
		iq.m = map[string]core.Question{}
	}
	iq.m[key] = q
	iq.mu.Unlock()
	<-ctx.Done()
	iq.mu.Lock()
	delete(iq.m, key)
	iq.mu.Unlock()
	return core.InteractionResponse{}, ctx.Err()
}

func (iq *inlineQuestions) get(task string, ia core.Interaction) core.Question {
	iq.mu.Lock()
	defer iq.mu.Unlock()
	if q, ok := iq.m[questionKey(task, ia.ID)]; ok {
		return q
	}
	return core.Question{TaskID: task, Interaction: ia}
}

// inputState is what requestState carries: the interaction the form asked about. It is signed
// with a key of this process, so a state the client made up or kept from an earlier server is
// recognised and ignored (the call then asks again if the interaction still waits).
type inputState struct {
	Task        string `json:"t"`
	Interaction string `json:"i"`
}

// newStateKey returns the key requestState is signed with.
func newStateKey() []byte {
	k := make([]byte, 32)
	_, _ = rand.Read(k) // crypto/rand.Read does not fail
	return k
}

func (s *Server) sealState(st inputState) string {
	b, _ := json.Marshal(st) // two strings
	mac := hmac.New(sha256.New, s.stateKey)
	mac.Write(b)
	return base64.RawURLEncoding.EncodeToString(b) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

func (s *Server) openState(v string) (inputState, bool) {
	body, sig, ok := strings.Cut(v, ".")
	if !ok {
		return inputState{}, false
	}
	b, err1 := base64.RawURLEncoding.DecodeString(body)
	got, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil {
		return inputState{}, false
	}
	mac := hmac.New(sha256.New, s.stateKey)
	mac.Write(b)
	var st inputState
	if !hmac.Equal(got, mac.Sum(nil)) || json.Unmarshal(b, &st) != nil || st.Task == "" || st.Interaction == "" {
		return inputState{}, false
	}
	return st, true
}

// applyInputResponses records the answer a retried call brings for the form its requestState
// names, before the call itself runs: the call then finds the interaction resolved. An answer
// for an interaction answered meanwhile (by Codex, a dashboard or the timeout) changes nothing.
func (s *Server) applyInputResponses(ctx context.Context, p callParams) {
	if p.RequestState == "" {
		return
	}
	st, ok := s.openState(p.RequestState)
	if !ok {
		s.log.Warn("mcp: ignoring a requestState this server did not issue", "tool", p.Name)
		return
	}
	raw, ok := p.InputResponses[st.Interaction]
	if !ok {
		s.log.Info("mcp: the retried call brings no answer for the form", "task", st.Task, "interaction", st.Interaction)
		return
	}
	resp, err := elicitedAnswer(raw, core.InteractionRequest{})
	if err != nil {
		s.log.Info("mcp: the form's answer is unusable; asking again", "task", st.Task, "interaction", st.Interaction, "err", err)
		return
	}
	svc, err := s.service.get(ctx)
	if err != nil {
		return // the call reports it
	}
	_, err = svc.Control(ctx, core.Respond{TaskID: st.Task, InteractionID: st.Interaction,
		Decision: resp.Decision, AnsweredBy: core.ByAskedUser, Outcome: resp.Outcome, Client: p.Client})
	if err != nil {
		s.log.Info("mcp: the form's answer was not recorded", "task", st.Task, "interaction", st.Interaction, "err", err)
		return
	}
	s.log.Info("mcp: form answered", "task", st.Task, "interaction", st.Interaction, "decision", resp.Decision, "outcome", resp.Outcome)
}

// inputRequired turns a reasonix_delegate result whose task waits on a permission interaction
// into an input_required result carrying the form; nil when there is nothing to ask.
func (c *session) inputRequired(res *mcp.CallToolResult) []byte {
	raw, ok := res.StructuredContent.(json.RawMessage)
	if !ok || res.IsError {
		return nil
	}
	var view struct {
		TaskID            string            `json:"task_id"`
		ActiveInteraction *core.Interaction `json:"active_interaction"`
	}
	if json.Unmarshal(raw, &view) != nil {
		return nil
	}
	ia := view.ActiveInteraction
	if ia == nil || ia.Kind != core.InteractionPermission || ia.Status != core.InteractionPending {
		return nil
	}
	q := c.inline.get(view.TaskID, *ia)
	b, err := json.Marshal(struct {
		InputRequests mcp.InputRequests `json:"inputRequests"`
		RequestState  string            `json:"requestState"`
	}{
		InputRequests: mcp.InputRequests{ia.ID: mcp.NewElicitationInputRequest(elicitationParams(q, true))},
		RequestState:  c.srv.sealState(inputState{Task: view.TaskID, Interaction: ia.ID}),
	})
	if err != nil {
		c.srv.log.Error("mcp: encoding an input_required result", "err", err)
		return nil
	}
	return b
}

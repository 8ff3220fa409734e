package remote

import (
	"context"
	"errors"
	"sync"
	"time"

	"connectrpc.com/connect"

	"reasonixctl/core"
)

// Asking through the owner. A task delegated in automatic mode with asking on (Codex's
// CODEX_REASONIX_PERMISSIONS=ask) asks a person through the MCP client's form. When the engine
// runs in another process (a `serve` owner, or a dashboard), the MCP server that can show the
// form is a client of that owner: it opens a Questions stream, the owner puts each question on
// it, and the client answers with Answer — first to record the person's answer (the Asker's
// Question.Record, before Codex learns of it), then with what its Asker returned. A question
// goes to the client whose Delegate created or resumed the task, else to the newest client
// that asks (Codex restarted: the task's first client is gone); the engine's own Asker, if
// the owner has one, comes before that newest client.

const (
	procQuestions = service + "Questions"
	procAnswer    = service + "Answer"
)

type questionsRequest struct {
	Session string `json:"session"`
}

// questionFrame is one message of the Questions stream: the first says the stream is in place;
// then a question, or Cancel for one answered elsewhere or timed out.
type questionFrame struct {
	Ready       bool              `json:"ready,omitempty"`
	TaskID      string            `json:"task_id,omitempty"`
	Interaction *core.Interaction `json:"interaction,omitempty"`
	TimeoutMS   int64             `json:"timeout_ms,omitempty"`
	Cancel      string            `json:"cancel,omitempty"` // the interaction id
}

// answerRequest answers question ID of the client's stream: Record records Response at once
// (Question.Record); otherwise Response or Error is what the client's Asker returned.
type answerRequest struct {
	Session  string                    `json:"session"`
	ID       string                    `json:"id"`
	Record   bool                      `json:"record,omitempty"`
	Response *core.InteractionResponse `json:"response,omitempty"`
	Error    string                    `json:"error,omitempty"`
}

type answerReply struct{}

// maxOpenQuestions bounds the questions queued for one client.
const maxOpenQuestions = 64

// askClient is one attached process that can ask its person.
type askClient struct {
	session string
	frames  chan questionFrame
	gone    chan struct{}
	mu      sync.Mutex
	open    map[string]*openQuestion
}

type openQuestion struct {
	q    core.Question
	done chan askResult
}

type askResult struct {
	resp core.InteractionResponse
	err  error
}

// askRegistry is the server's record of the clients that ask and of who delegated each task.
type askRegistry struct {
	mu          sync.Mutex
	clients     map[string]*askClient
	newest      *askClient
	delegatedBy map[string]string // task id → session
}

// delegated notes that session's client delegates (or resumes) task id; undo restores what
// was noted before.
func (s *Server) delegated(taskID, session string) (undo func()) {
	if session == "" || taskID == "" {
		return func() {}
	}
	s.ask.mu.Lock()
	defer s.ask.mu.Unlock()
	if s.ask.delegatedBy == nil {
		s.ask.delegatedBy = map[string]string{}
	}
	before, had := s.ask.delegatedBy[taskID]
	s.ask.delegatedBy[taskID] = session
	return func() {
		s.ask.mu.Lock()
		defer s.ask.mu.Unlock()
		if s.ask.delegatedBy[taskID] != session {
			return
		}
		if had {
			s.ask.delegatedBy[taskID] = before
		} else {
			delete(s.ask.delegatedBy, taskID)
		}
	}
}

// routeQuestion is the engine's remote route (engine.Engine.SetRemoteAskers).
func (s *Server) routeQuestion(taskID string) (core.Asker, bool) {
	s.ask.mu.Lock()
	defer s.ask.mu.Unlock()
	if c := s.ask.clients[s.ask.delegatedBy[taskID]]; c != nil {
		return c.ask, true
	}
	if s.ask.newest != nil {
		return s.ask.newest.ask, false
	}
	return nil, false
}

// ask puts q to the client and waits for its answer.
func (c *askClient) ask(ctx context.Context, q core.Question) (core.InteractionResponse, error) {
	id := q.Interaction.ID
	oq := &openQuestion{q: q, done: make(chan askResult, 1)}
	c.mu.Lock()
	if len(c.open) >= maxOpenQuestions {
		c.mu.Unlock()
		return core.InteractionResponse{}, errors.New("the attached client has too many open questions")
	}
	c.open[id] = oq
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.open, id)
		c.mu.Unlock()
	}()
	ia := q.Interaction
	select {
	case c.frames <- questionFrame{TaskID: q.TaskID, Interaction: &ia, TimeoutMS: q.Timeout.Milliseconds()}:
	case <-ctx.Done():
		return core.InteractionResponse{}, ctx.Err()
	case <-c.gone:
		return core.InteractionResponse{}, errors.New("the attached client that asks went away")
	}
	select {
	case r := <-oq.done:
		return r.resp, r.err
	case <-ctx.Done():
		select {
		case c.frames <- questionFrame{Cancel: id}:
		default: // the stream is gone or full: the client's own timeout ends its form
		}
		return core.InteractionResponse{}, ctx.Err()
	case <-c.gone:
		return core.InteractionResponse{}, errors.New("the attached client that asks went away")
	}
}

// questions holds a client's Questions stream open, relaying the questions put to it.
func (s *Server) questions(ctx context.Context, req *connect.Request[questionsRequest], stream *connect.ServerStream[questionFrame]) error {
	s.bodyRead(ctx)
	session := req.Msg.Session
	if session == "" {
		return toWire(core.Errorf(core.CodeInvalidRequest, nil, "a Questions stream needs the client's session"))
	}
	c := &askClient{session: session, frames: make(chan questionFrame, maxOpenQuestions), gone: make(chan struct{}), open: map[string]*openQuestion{}}
	s.ask.mu.Lock()
	if s.ask.clients == nil {
		s.ask.clients = map[string]*askClient{}
	}
	if old := s.ask.clients[session]; old != nil {
		s.ask.mu.Unlock()
		return toWire(core.Errorf(core.CodeInvalidRequest, nil, "session %q already has a Questions stream", session))
	}
	s.ask.clients[session] = c
	s.ask.newest = c
	s.ask.mu.Unlock()
	defer func() {
		s.ask.mu.Lock()
		delete(s.ask.clients, session)
		if s.ask.newest == c {
			s.ask.newest = nil
			for _, other := range s.ask.clients {
				s.ask.newest = other // any other: the newest is not known once one left
				break
			}
		}
		s.ask.mu.Unlock()
		close(c.gone)
	}()
	if err := send(s, ctx, stream, &questionFrame{Ready: true}); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case f := <-c.frames:
			if err := send(s, ctx, stream, &f); err != nil {
				return err
			}
		}
	}
}

// answer takes a client's answer to one of its open questions.
func (s *Server) answer(_ context.Context, r *answerRequest) (*answerReply, error) {
	s.ask.mu.Lock()
	c := s.ask.clients[r.Session]
	s.ask.mu.Unlock()
	var oq *openQuestion
	if c != nil {
		c.mu.Lock()
		oq = c.open[r.ID]
		c.mu.Unlock()
	}
	if oq == nil {
		return nil, core.Errorf(core.CodeInteractionNotFound, nil, "no open question %s for this client: it was answered elsewhere or timed out", r.ID)
	}
	switch {
	case r.Record:
		if r.Response == nil {
			return nil, core.Errorf(core.CodeInvalidRequest, nil, "recording an answer needs its response")
		}
		if err := oq.q.Record(*r.Response); err != nil {
			return nil, err
		}
	case r.Error != "":
		deliver(oq, askResult{err: errors.New(r.Error)})
	case r.Response != nil:
		deliver(oq, askResult{resp: *r.Response})
	default:
		return nil, core.Errorf(core.CodeInvalidRequest, nil, "an answer needs a response or an error")
	}
	return &answerReply{}, nil
}

// deliver hands the Asker's result to the waiting question; a second one is dropped.
func deliver(oq *openQuestion, r askResult) {
	select {
	case oq.done <- r:
	default:
	}
}

// SetAsker makes this client the way its owner asks this process's person (the MCP client's
// form) about the tasks it delegated; nil stops. An owner too old to ask is left as it is.
func (c *Client) SetAsker(a core.Asker) {
	c.askMu.Lock()
	defer c.askMu.Unlock()
	c.asker = a
	switch {
	case a != nil && c.stopAsking == nil:
		ctx, cancel := context.WithCancel(c.ctx)
		c.stopAsking = cancel
		go c.serveQuestions(ctx)
	case a == nil && c.stopAsking != nil:
		c.stopAsking()
		c.stopAsking = nil
	}
}

func (c *Client) currentAsker() core.Asker {
	c.askMu.Lock()
	defer c.askMu.Unlock()
	return c.asker
}

// serveQuestions answers the questions the owner puts to this client until ctx ends or the
// stream does.
func (c *Client) serveQuestions(ctx context.Context) {
	stream, err := c.questions.CallServerStream(ctx, connect.NewRequest(&questionsRequest{Session: c.session}))
	if err != nil {
		return
	}
	defer stream.Close()
	var mu sync.Mutex
	cancels := map[string]context.CancelFunc{}
	for stream.Receive() {
		f := stream.Msg()
		switch {
		case f.Ready:
		case f.Cancel != "":
			mu.Lock()
			if cancel := cancels[f.Cancel]; cancel != nil {
				cancel()
			}
			mu.Unlock()
		case f.Interaction != nil:
			ia := *f.Interaction
			timeout := time.Duration(f.TimeoutMS) * time.Millisecond
			qctx, cancel := context.WithCancel(ctx)
			if timeout > 0 {
				qctx, cancel = context.WithTimeout(ctx, timeout)
			}
			mu.Lock()
			cancels[ia.ID] = cancel
			mu.Unlock()
			go func() {
				defer func() {
					mu.Lock()
					delete(cancels, ia.ID)
					mu.Unlock()
					cancel()
				}()
				c.askOne(qctx, f.TaskID, ia, timeout)
			}()
		}
	}
}

// askOne asks this process's Asker one question and sends what it says to the owner.
func (c *Client) askOne(ctx context.Context, taskID string, ia core.Interaction, timeout time.Duration) {
	reply := func(req *answerRequest) error {
		req.Session, req.ID = c.session, ia.ID
		// The answer must reach the owner even as the question's own context ends.
		actx, cancel := context.WithTimeout(c.ctx, helloTimeout)
		defer cancel()
		_, err := unaryCall(c, actx, c.answerCl, req)
		return err
	}
	a := c.currentAsker()
	if a == nil {
		_ = reply(&answerRequest{Error: "this client no longer asks"})
		return
	}
	q := core.Question{TaskID: taskID, Interaction: ia, Timeout: timeout,
		Record: func(resp core.InteractionResponse) error { return reply(&answerRequest{Record: true, Response: &resp}) }}
	resp, err := a(ctx, q)
	if err != nil {
		_ = reply(&answerRequest{Error: err.Error()})
		return
	}
	_ = reply(&answerRequest{Response: &resp})
}

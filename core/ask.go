package core

import (
	"context"
	"sync"
	"time"
)

// DefaultAskTimeout is how long a task delegated in automatic mode waits for a person before
// the automatic denial applies (CODEX_REASONIX_ASK_TIMEOUT).
const DefaultAskTimeout = 120 * time.Second

// Asker asks someone outside the engine — Codex's own user, through MCP elicitation — about a
// command the policy does not know. It returns the answer, or an error when the person
// declined, cancelled or could not be asked; every outcome but an allow falls back to the
// automatic denial. ctx ends when the interaction is answered elsewhere or times out.
type Asker func(ctx context.Context, q Question) (InteractionResponse, error)

// Question is what an Asker is asked: the waiting interaction of a task.
type Question struct {
	TaskID      string
	Interaction Interaction
	Timeout     time.Duration
}

// askers records who can answer the permission interactions of automatic-mode tasks: the
// dashboards attached to this engine, and at most one Asker.
type askers struct {
	mu          sync.Mutex
	supervisors int
	// left is closed when the last supervisor detaches, so that questions waiting for one
	// fall back at once instead of at their timeout; a new one is made for the next.
	left  chan struct{}
	asker Asker
}

// AttachSupervisor records a person watching this engine (a dashboard, in-process or attached
// through the owner's socket). While one is attached, tasks delegated in automatic mode ask
// about commands the policy does not know instead of denying them at once; with no answer
// within the ask timeout the automatic denial applies. detach undoes it; it is idempotent.
func (e *Engine) AttachSupervisor() (detach func()) {
	e.askers.mu.Lock()
	e.askers.supervisors++
	if e.askers.supervisors == 1 {
		e.askers.left = make(chan struct{})
	}
	e.askers.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			e.askers.mu.Lock()
			e.askers.supervisors--
			if e.askers.supervisors == 0 {
				close(e.askers.left)
			}
			e.askers.mu.Unlock()
		})
	}
}

// Supervisors returns how many supervisors are attached.
func (e *Engine) Supervisors() int {
	e.askers.mu.Lock()
	defer e.askers.mu.Unlock()
	return e.askers.supervisors
}

// SetAsker installs (or, with nil, removes) the Asker consulted when no supervisor is attached.
func (e *Engine) SetAsker(a Asker) {
	e.askers.mu.Lock()
	e.askers.asker = a
	e.askers.mu.Unlock()
}

// askFor says whether an automatic-mode task may ask about a command now, and whom: the attached
// supervisors (unwatched is then closed when the last of them leaves, taken under the same lock
// so that one leaving right after cannot be missed) or the Asker.
func (e *Engine) askFor() (ok bool, a Asker, timeout time.Duration, unwatched <-chan struct{}) {
	e.askers.mu.Lock()
	defer e.askers.mu.Unlock()
	timeout = e.cfg.AskTimeout
	if e.askers.supervisors > 0 {
		return true, nil, timeout, e.askers.left
	}
	if e.askers.asker != nil {
		return true, e.askers.asker, timeout, nil
	}
	return false, nil, 0, nil
}

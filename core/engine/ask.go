package engine

import (
	"reasonixctl/core"

	"sync"
	"time"
)

// askers records who can answer the permission interactions of automatic-mode tasks: the
// dashboards attached to this engine, and at most one Asker.
type askers struct {
	mu          sync.Mutex
	supervisors int
	// left is closed when the last supervisor detaches, so that questions waiting for one
	// fall back at once instead of at their timeout; a new one is made for the next.
	left  chan struct{}
	asker core.Asker
	// remote routes a task's questions to an Asker in another process (an MCP server attached
	// to this owner): the one whose client delegated the task (delegated true), else any.
	remote func(taskID string) (a core.Asker, delegated bool)
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
func (e *Engine) SetAsker(a core.Asker) {
	e.askers.mu.Lock()
	e.askers.asker = a
	e.askers.mu.Unlock()
}

// SetRemoteAskers installs (or, with nil, removes) how questions reach Askers in processes
// attached to this engine's owner: route returns the Asker of the client that delegated the
// task (delegated true) or, failing that, of any client that can ask (nil when none does).
func (e *Engine) SetRemoteAskers(route func(taskID string) (a core.Asker, delegated bool)) {
	e.askers.mu.Lock()
	e.askers.remote = route
	e.askers.mu.Unlock()
}

// askFor says whether an automatic-mode task may ask about a command now, and whom: the attached
// supervisors (unwatched is then closed when the last of them leaves, taken under the same lock
// so that one leaving right after cannot be missed), else the Asker of the client that
// delegated the task, this process's Asker, or any attached client's.
func (e *Engine) askFor(taskID string) (ok bool, a core.Asker, timeout time.Duration, unwatched <-chan struct{}) {
	e.askers.mu.Lock()
	defer e.askers.mu.Unlock()
	timeout = e.cfg.AskTimeout
	if e.askers.supervisors > 0 {
		return true, nil, timeout, e.askers.left
	}
	var remote core.Asker
	if e.askers.remote != nil {
		var delegated bool
		if remote, delegated = e.askers.remote(taskID); remote != nil && delegated {
			return true, remote, timeout, nil
		}
	}
	if e.askers.asker != nil {
		return true, e.askers.asker, timeout, nil
	}
	if remote != nil {
		return true, remote, timeout, nil
	}
	return false, nil, 0, nil
}

// answerer names who answered, for a sentence, by what is known: an MCP client's answer is
// worded by the client that carried it (its clientInfo), since nothing in MCP says whether a
// person stood behind it. A client may answer a form itself: codex exec declines every one.
func answerer(r *core.InteractionResponse) string {
	switch r.By {
	case core.ByAskedUser:
		return "the form shown through " + clientName(r.Client)
	case core.ByCodex:
		return clientName(r.Client) + " (reasonix_control respond)"
	case core.ByPolicy:
		return "the policy"
	}
	return "the supervisor at the dashboard"
}

// clientName is an MCP client as a sentence names it.
func clientName(client string) string {
	if client == "" {
		return "an MCP client that did not name itself"
	}
	return client
}

// answerWords says in words what the answer to a permission interaction was: the reason of its
// permission_decided event.
func answerWords(r *core.InteractionResponse) string {
	if r.By == core.ByAskedUser {
		via := clientName(r.Client)
		switch r.Outcome {
		case core.OutcomeDeclined:
			return "declined through " + via + " (a client may decline a form without showing it), which denies it"
		case core.OutcomeCancelled:
			return "dismissed through " + via + " without an answer, which denies it"
		}
	}
	who := answerer(r)
	switch r.Outcome {
	case core.OutcomeDeclined:
		return who + " declined to answer, which denies it"
	case core.OutcomeCancelled:
		return who + " dismissed the question without answering, which denies it"
	}
	if r.Decision == core.DecisionAllow {
		return "allowed by " + who
	}
	return "denied by " + who
}

// deniedSteer is what the worker is told after a person denied its request: who did, and how.
func deniedSteer(r *core.InteractionResponse, what string) string {
	if what != "" {
		what = " (" + core.TruncateText(what, 200) + ")"
	}
	return "The previous tool request" + what + " was not allowed: " + answerWords(r) +
		". Do not retry it or work around it; go on without it, and say in your summary what it would have needed."
}

package core

import (
	"context"
	"time"
)

// DefaultAskTimeout is how long a task delegated in automatic mode waits for a person before
// the automatic denial applies (CODEX_REASONIX_ASK_TIMEOUT).
const DefaultAskTimeout = 120 * time.Second

// Asker asks someone outside the engine — Codex's own user, through MCP elicitation — about a
// command the policy does not know. It returns the person's answer as given: Decision allow or
// deny, and Outcome answered, declined or cancelled (the last two deny); the engine records it
// as theirs (by asked_user). An error means the person could not be asked: the automatic
// denial applies at once. ctx ends when the interaction is answered elsewhere or times out.
type Asker func(ctx context.Context, q Question) (InteractionResponse, error)

// Question is what an Asker is asked: the waiting interaction of a task.
type Question struct {
	TaskID      string
	Interaction Interaction
	Timeout     time.Duration
	// Record records an answer at once, as the Asker would return it; later calls return the
	// first one's result and the Asker's own return value is then not recorded again. An
	// Asker calls it before letting anyone learn that the person answered (the client's next
	// request may rely on it), so that nothing reads the interaction as still pending.
	Record func(InteractionResponse) error
}

package core

// Command is what Service.Control carries out on a task: one type per control action, each
// holding exactly the fields its action takes, so that a front end cannot build a steer with a
// commit message or a finalize without its review binding, and the engine switches on the Go
// type rather than on a name. reasonix_control's flat form (an action and every field of every
// action, with presence rules per action) is MCP's wire and lives in package mcp alone, which
// parses it into one of these.
//
// The set is closed (the marker method is unexported) so that a switch over it in the engine
// or on the owner's socket can be complete. Commands are values: Control takes a Steer, not a
// *Steer.
//
// Their JSON is the owner socket's form (core/remote), not reasonix_control's: it carries
// what only a front end in this binary sets (Finalize.Authority, Respond.AnsweredBy, Outcome,
// Client and Grant), which a peer on the socket, running as our uid, may set as well.
type Command interface {
	// Task is the id of the task the command is for.
	Task() string
	// Action is the command's name among the actions ActionsFor offers (ActionSteer, …).
	Action() string
	command()
}

// Commands returns one value of every command type, zero but for being of its type, in
// the order of the action constants: what covers every command when enumerated.
func Commands() []Command {
	return []Command{Steer{}, Respond{}, Cancel{}, Finalize{}, Close{}, AmendChecks{}, Rebase{}}
}

// Steer sends the worker a message: mid-turn while it runs, or as a repair round from review.
type Steer struct {
	TaskID  string `json:"task_id"`
	Message string `json:"message"`
}

// Respond answers a pending interaction.
type Respond struct {
	TaskID        string `json:"task_id"`
	InteractionID string `json:"interaction_id"`
	Decision      string `json:"decision"` // allow | deny
	OptionID      string `json:"option_id,omitempty"`
	Answer        string `json:"answer,omitempty"`

	// AnsweredBy names who answers in the record: ByCodex for reasonix_control, ByAskedUser for
	// the person a client's form asked; empty is a dashboard (BySupervisor). Outcome says how
	// that person answered: empty or OutcomeAnswered for an explicit allow or deny,
	// OutcomeDeclined or OutcomeCancelled (with decision deny) for a form they declined or
	// dismissed. A reasonix_control client chooses neither.
	AnsweredBy string `json:"answered_by,omitempty"`
	Outcome    string `json:"outcome,omitempty"`
	// Client names the MCP client that carried the answer, as its clientInfo says (name and
	// version), for ByCodex and ByAskedUser: the words then say through what it came, rather
	// than assume who was behind it.
	Client string `json:"client,omitempty"`
	// Grant, with an allow of a permission for a command, also allows that exact command (argv
	// and cwd) in the task's repository from now on (a standing Grant). Only a person at a
	// dashboard gives one.
	Grant bool `json:"grant,omitempty"`
}

// Cancel ends a task: its worker stops and nothing is committed.
type Cancel struct {
	TaskID string `json:"task_id"`
}

// Close ends a task the supervisor no longer wants; a committed result stays on its branch.
type Close struct {
	TaskID string `json:"task_id"`
}

// Finalize turns the reviewed tree into one commit on the task's branch, bound to the review
// revision and tree hash the supervisor approved.
type Finalize struct {
	TaskID                 string   `json:"task_id"`
	ReviewSummary          string   `json:"review_summary"`
	ApprovedReviewCriteria []string `json:"approved_review_criteria,omitempty"`
	ExpectedReviewRevision *int     `json:"expected_review_revision,omitempty"`
	ExpectedReviewTreeHash string   `json:"expected_review_tree_hash"`
	CommitMessage          string   `json:"commit_message,omitempty"`
	WaitTimeoutSeconds     *int     `json:"wait_timeout_seconds,omitempty"`
	// AcknowledgedRisks lists the id (or text) of every risk the review found in the diff.
	AcknowledgedRisks []string `json:"acknowledged_risks,omitempty"`
	// ExcusedChecks excuses verification commands that fail before the change too.
	ExcusedChecks []ExcusedCheck `json:"excused_checks,omitempty"`
	// Authority is where the supervisor may act, as its front end established it; a
	// reasonix_control client does not choose it.
	Authority Authority `json:"authority"`
}

// AmendChecks changes the verification commands of a task in review: verification ids to drop,
// commands to add (each proves "<id>-passes").
type AmendChecks struct {
	TaskID     string       `json:"task_id"`
	DropChecks []string     `json:"drop_checks,omitempty"`
	AddChecks  []AddedCheck `json:"add_checks,omitempty"`
}

// Rebase moves a task in review whose change no longer applies onto the source's current HEAD,
// conflicts marked for a repair round.
type Rebase struct {
	TaskID string `json:"task_id"`
}

func (c Steer) Task() string       { return c.TaskID }
func (c Respond) Task() string     { return c.TaskID }
func (c Cancel) Task() string      { return c.TaskID }
func (c Close) Task() string       { return c.TaskID }
func (c Finalize) Task() string    { return c.TaskID }
func (c AmendChecks) Task() string { return c.TaskID }
func (c Rebase) Task() string      { return c.TaskID }

func (Steer) Action() string       { return ActionSteer }
func (Respond) Action() string     { return ActionRespond }
func (Cancel) Action() string      { return ActionCancel }
func (Close) Action() string       { return ActionClose }
func (Finalize) Action() string    { return ActionFinalize }
func (AmendChecks) Action() string { return ActionAmendChecks }
func (Rebase) Action() string      { return ActionRebase }

func (Steer) command()       {}
func (Respond) command()     {}
func (Cancel) command()      {}
func (Close) command()       {}
func (Finalize) command()    {}
func (AmendChecks) command() {}
func (Rebase) command()      {}

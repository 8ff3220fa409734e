// Package intent is what the parts of the dashboard ask the root to do, as values: a dialog or
// a tab never holds the root or calls the service; it returns a Result, and the root carries it
// out.
package intent

import "reasonixctl/core"

// Result is what a part of the dashboard asks of the root after a key or a message: close
// the dialog, put a prompt aside, quit, send one request, or carry out an action.
type Result struct {
	Close    bool
	Later    bool // a prompt put aside; `i` brings it back
	Quit     bool
	Draft    string // draft a contract for this repository directory
	Control  core.Command
	Delegate *NewTask
	// Do is any other action, a value the root carries out.
	Do Action
}

// NewTask is what the new-task form collects; reading the contract file happens in the
// command that calls Delegate.
type NewTask struct {
	ContractPath, RepoDir, TaskID string
	Lane                          core.Lane
	Worker                        string // one of core.WorkerNames
}

// Action is what a dialog asks the dashboard to do beyond closing, sending a control or a
// delegate, or drafting a contract: a value, carried out by perform. Dialogs never hold the
// model or call the service.
type Action interface{ isAction() }

type (
	// Suspend suspends the dashboard (ctrl+z, confirmed).
	Suspend struct{}
	// Apply cherry-picks a completed task's commit onto its checkout (L, confirmed).
	Apply struct{ TaskID string }
	// DropCheck drops a check from a task's contract (D in the checks tab, confirmed).
	DropCheck struct{ TaskID, Check string }
	// EditContract opens a contract file in $EDITOR (the new-task form's ctrl+e).
	EditContract struct{ Path string }
	// Copy copies text to the clipboard (OSC 52); what names it in the status line.
	Copy struct{ Text, What string }
	// SaveComment adds, edits or deletes a review comment.
	SaveComment struct{ Req core.CommentRequest }
	// SendComments sends a task's open review comments as one repair round.
	SendComments struct{ TaskID string }
	// OpenRequest opens a task's waiting request over the dialog that asked (the steer
	// dialog of a task that waits for the person).
	OpenRequest struct{ TaskID string }
	// Grants asks the owner for the standing grants, first revoking grant Revoke when set.
	Grants struct{ Revoke string }
)

func (Suspend) isAction()      {}
func (Apply) isAction()        {}
func (DropCheck) isAction()    {}
func (EditContract) isAction() {}
func (Copy) isAction()         {}
func (SaveComment) isAction()  {}
func (SendComments) isAction() {}
func (OpenRequest) isAction()  {}
func (Grants) isAction()       {}

package core

// EventAppliedToCheckout is journaled when a completed task's commit is cherry-picked onto the
// source checkout's branch (AppliedData).
const EventAppliedToCheckout = "applied_to_checkout"

// AppliedData is the data of applied_to_checkout.
type AppliedData struct {
	Checkout string `json:"checkout"`
	Branch   string `json:"branch"`
	Commit   string `json:"commit"`  // the task's commit
	Before   string `json:"before"`  // the branch's HEAD before
	Applied  string `json:"applied"` // the new commit on the branch
	Command  string `json:"command"` // what was run, for people
}

// ApplyResult says what applying a task's commit to its source checkout does (a dry run) or did.
type ApplyResult struct {
	TaskID   string `json:"task_id"`
	Checkout string `json:"checkout"`
	Branch   string `json:"branch"`
	Head     string `json:"head"`   // the branch's HEAD the commit goes onto
	Commit   string `json:"commit"` // the task's commit
	Command  string `json:"command"`
	Applied  bool   `json:"applied"`            // false for a dry run
	NewHead  string `json:"new_head,omitempty"` // the commit made on the branch
}

package core

// ExcusedCheck is the supervisor's excuse, given with finalize, for one verification command
// that fails on the base commit too: the task may commit although that command fails, and the
// commit message says so. Only finalize takes it, so only a supervisor can give it — never the
// worker — and it applies only when the command is seen to fail before the change as well.
type ExcusedCheck struct {
	ID     string `json:"id"`     // a verification id of the task's contract
	Reason string `json:"reason"` // why the failure may stand, one line; recorded and in the commit
}

// Limits of excused_checks.
const (
	MaxExcusedChecks   = 32
	MaxExcuseReasonLen = 500
)

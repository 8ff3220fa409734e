package core

import (
	"os"
	"slices"
	"strings"
)

// WorkerReasonix is the default worker; the other WorkerNames are agents other than Reasonix
// that speak ACP, which reasonixctl supervises without Reasonix's extensions.
const WorkerReasonix = "reasonix"

// WorkerNames are the agents a task may run as its worker, the default first. It is the one
// list: the reasonix_delegate schema's enum, the dashboard's new-task form and validation all
// read it.
var WorkerNames = []string{WorkerReasonix, "claude", "codex", "gemini", "qwen", "opencode"}

// WorkerEnv names the variable that sets the worker of a task that does not name one.
const WorkerEnv = "CODEX_REASONIX_WORKER"

// CheckWorker returns name when it is one of WorkerNames, "" as "" (the default applies), and
// an invalid_request error with an *UnknownWorker detail for anything else. from says where
// the name came from, for the message ("worker", "CODEX_REASONIX_WORKER").
func CheckWorker(name, from string) (string, error) {
	if name == "" || slices.Contains(WorkerNames, name) {
		return name, nil
	}
	return "", Errorf(CodeInvalidRequest, &UnknownWorker{Worker: TruncateText(name, 64), Known: slices.Clone(WorkerNames)},
		"%s %q is not a worker reasonixctl knows; use one of %s", from, TruncateText(name, 64), strings.Join(WorkerNames, ", "))
}

// DefaultWorker is the worker of a task that names none: CODEX_REASONIX_WORKER when set (an
// error when it names no known worker), else reasonix.
func DefaultWorker(getenv func(string) string) (string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	name, err := CheckWorker(strings.TrimSpace(getenv(WorkerEnv)), WorkerEnv)
	if err != nil || name == "" {
		return WorkerReasonix, err
	}
	return name, nil
}

// ForeignWorker reports whether a task's worker (as its record keeps it, "" for Reasonix) is
// an agent other than Reasonix: one whose requests carry none of Reasonix's metadata.
func ForeignWorker(name string) bool { return name != "" && name != WorkerReasonix }

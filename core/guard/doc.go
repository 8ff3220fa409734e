// Package guard is the decision of Codex's PreToolUse hook (`reasonixctl hook pre-tool-use`):
// in a repository with an active task, Codex's own Bash runs only simple read-only commands and
// apply_patch may not touch a path in an active write scope. It reads only the active-task
// records the engine keeps under <state>/active (WriteActive, ReadActive), never the store, and
// fails closed on input or records it cannot read.
package guard

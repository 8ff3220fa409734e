// Package policy decides the worker's permission requests: shell commands (ClassifyExec) and
// structured tool calls such as edits and reads (ClassifyEdit). Each decision is allow, with the
// watchdog timeout of a command, or deny with a stable code, a reason and a recovery hint. Hard
// denials are checked before anything else, so no contract can loosen them.
//
// Decisions have no side effects; they only read the file system to resolve real paths
// (the command's cwd, symlinks on edited paths).
package policy

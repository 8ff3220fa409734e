// Package policy classifies the worker's shell commands and structured edits into allow or deny
// with a stable code, a reason and a recovery hint. No contract can loosen a hard denial.
package policy

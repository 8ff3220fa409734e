package engine

import (
	"context"

	"reasonixctl/core"
)

// ErrorWrappings are the ways the engine passes on an error it got from a step, by name, for
// the test that walks every code through them and on across the owner socket and MCP
// (errhops_test.go). Each keeps a *core.Error's code, details and next action. The task named
// by commitFailed and backToReview does not exist, so they only map the error.
func ErrorWrappings(e *Engine) []NamedWrapping {
	ctx := context.Background()
	return []NamedWrapping{
		{"wrapError", func(err error) error {
			return wrapError(core.CodeInternalError, err, "comparing the worktree with the review")
		}},
		{"wrapError(commit)", func(err error) error { return wrapError(core.CodeCommitFailed, err, "the commit failed") }},
		{"gitError", gitError},
		{"workerError", workerError},
		{"commitFailed", func(err error) error { return e.commitFailed(ctx, "no-such-task", err) }},
		{"backToReview", func(err error) error { return e.backToReview(ctx, "no-such-task", err) }},
	}
}

// NamedWrapping is one of ErrorWrappings.
type NamedWrapping struct {
	Name string
	Wrap func(error) error
}

// WrapError is wrapError, for the gitx cases of the hop test.
func WrapError(fallback core.Code, err error, what string) *core.Error {
	return wrapError(fallback, err, what)
}

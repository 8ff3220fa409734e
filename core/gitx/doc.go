// Package gitx is the git plumbing of a task: repository identity, worktrees, the canonical review
// tree, collision scans and the compare-and-swap commit. It never writes the caller's checkout.
package gitx

// Package sandbox runs verification commands, the secret scanner and git hooks inside bubblewrap:
// no network, read-only root, only the worktree writable, credentials hidden, the process group
// killed on timeout.
package sandbox

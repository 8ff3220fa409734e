// Package sandbox runs verification commands, the secret scanner and git hooks inside bubblewrap:
// no network, read-only root, only the worktree writable, the repository root readable, the
// user's credentials hidden, a private /tmp, an allowlisted environment without HOME, output
// capped per stream, and the whole process group killed on timeout and after every exit.
//
// Without a working engine Run fails with code sandbox_unavailable unless the Runner explicitly
// allows running unsandboxed.
package sandbox

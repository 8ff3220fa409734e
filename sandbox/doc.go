// Package sandbox runs verification commands, the secret scanner and git hooks inside bubblewrap:
// no network, read-only root, only the worktree writable, the repository root readable, the
// user's credentials hidden, a private /tmp, an allowlisted environment without the user's HOME,
// output capped per stream, and the whole process group killed on timeout and after every exit.
// Toolchains get a private writable cache (HOME, GOCACHE, npm's, pip's and cargo's caches point
// into it) and see the user's Go module cache and cargo registry read-only, offline.
//
// A task's worker runs confined too (ConfineWorker), with a private home and, given its model
// endpoints, a network namespace of its own that reaches only those, through a proxy this
// package runs and a forwarder inside the sandbox (netproxy.go, ForwardMain).
//
// Without a working engine Run fails with code sandbox_unavailable unless the Runner explicitly
// allows running unsandboxed.
package sandbox

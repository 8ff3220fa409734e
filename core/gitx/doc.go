// Package gitx is the git plumbing of a task, through the git CLI with a sanitised environment:
// repository identity, the clean check, author identity, base resolution, the task branch and
// worktree, the canonical review tree and its diff, the objects a commit would hold (modes,
// sizes, content, symlinks resolved inside the tree), the source-collision scan, and the
// compare-and-swap commit of exactly the reviewed tree.
//
// No git process finds its repository through a task's worktree, whose .git the worker can
// rewrite: each runs at a declared place (exec.go) — the person's checkout, the task's
// repository by its common directory, or a private view of the worktree that carries none of
// the repository's or the worktree's config and attributes (view.go) — and the worktree's .git
// is held to the link made at its creation (CheckLink).
//
// It never writes the caller's checkout: apart from `git worktree add` (which creates the task
// branch and the worktree's administrative files) every write goes to the task's worktree or to
// a temporary index. Nothing is pushed, fetched or merged. Execs counts every git process.
package gitx

// Package gitx is the git plumbing of a task, through the git CLI with a sanitised environment:
// repository identity, the clean check, author identity, base resolution, the task branch and
// worktree, the canonical review tree and its diff, the objects a commit would hold (modes,
// sizes, content, symlinks resolved inside the tree), the source-collision scan, and the
// compare-and-swap commit of exactly the reviewed tree.
//
// It never writes the caller's checkout: apart from `git worktree add` (which creates the task
// branch and the worktree's administrative files) every write goes to the task's worktree or to
// a temporary index. Nothing is pushed, fetched or merged. Execs counts every git process.
package gitx

// Package review judges what a task's change may commit, without an engine: every changed path
// of a tree by its name, type, symlink target, size and content (JudgeTree), the reason text and
// error of what was refused, and the whitespace errors `git diff --check` would flag. The engine
// calls it when a review is prepared and again at finalize.
package review

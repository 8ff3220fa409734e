// Package engine is the task engine behind core.Service: it owns a state directory (the store,
// the owner lock), runs Reasonix workers over ACP in task worktrees, decides their permission
// requests, keeps every task's journal, reviews a worker's result and turns the reviewed tree
// into one commit. It also recovers tasks after a restart and archives and prunes old ones.
//
// Front ends do not import it: they hold a core.Service. cmd/reasonixctl opens the engine
// (Open) and core/remote serves it to other processes.
package engine

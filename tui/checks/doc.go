// Package checks is the checks tab of a task: the verification of its last finalize attempt,
// one row per check, and the selected check's whole log below, paged and searchable; D asks to
// drop the selected check from the contract.
//
// The dashboard gives the tab the task's detail as values (Show) and the size it draws in
// (Resize), and calls OnScreen while the tab is on screen; a log is read page by page in a tea.Cmd
// through a LogReader and comes back as a LogRead message for the task. The tab never calls
// the service or opens a dialog itself: what it asks of the root is its Result.
package checks

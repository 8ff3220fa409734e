// Package replay is the replay: a task's journal read once from its first event, stepped
// through one event at a time, showing the task as it was after each (core's reducer, with
// snapshots so a seek folds few events) beside the events around that point, each drawn in one
// line as the events tab words it.
//
// The root opens one with Open (whose command reads the journal), routes LoadedMsg and every
// key to Update while it is on screen, and draws it with View over the whole body.
package replay

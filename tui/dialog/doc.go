// Package dialog is the dashboard's dialogs and the stack they are drawn from: the worker's
// permission or question prompt, the steer, finalize and new-task forms, confirmations,
// notices, the standing grants and the full help.
//
// A dialog never calls the service or holds the dashboard: Update returns an intent.Result
// that the root carries out (a control request, a delegate, an action). What a dialog shows
// comes in as values — a task's view or detail, the files not marked reviewed, the cherry-pick
// preview, the help groups — and results of the root's commands come back through methods
// (Drafted, Refused, Answered). The one service call a dialog needs, the grants', is made in
// a tea.Cmd (GrantsCmd) through a narrow interface.
//
// Each dialog reads its keys from one binding table built from the key map: the table
// dispatches the key, gives the dialog's key line (the keys that do something now) and its
// lines of the full help (HelpGroups). A key of the table that does nothing now says why in
// the dialog itself, where the person is looking.
//
// The stack keeps what no dialog may decide for itself: the key grace of a new prompt (keys
// typed before it was on screen never answer it), ctrl+c, ? and paging a body taller than the
// screen.
package dialog

// Package tui is the Bubble Tea dashboard: live tasks, streamed worker events, keyboard answers to
// permission prompts, diff review and finalize. It talks only to core.Service and its events.
//
// Run owns the terminal (alt screen) and feeds the model through one relay goroutine that reads
// a Subscribe(all tasks) stream and calls program.Send; NewModel gives tests the same model
// without a terminal.
//
// # Structure
//
// The root Model (model.go) sizes the screen, relays each message by its type (and, for a
// task's results, by its task id) to the part it belongs to, owns the focus and the dialog
// stack, and routes every key: to the top dialog if one is open, else to the focused pane, else
// to the dashboard's own keys. The parts:
//
//   - task list and task data: tasklist.go (the rows, the selection), attention.go (the list's
//     order by what each task needs from the person, the header's counts, the bell when a task
//     starts waiting or becomes ready), tasks.go (what is kept per task and how events, details
//     and journal reads update it), service.go (the commands that call core.Service);
//   - panes (panes.go), one of which has the keys when no dialog is open: the replay
//     (tui/replay; replay.go opens it and routes its keys), or the selected task's tab, which also
//     draws itself under the tab bar — events with their search and filter (tui/events; events.go
//     routes its keys and pages), review (tui/review; review.go places it and carries out what it
//     asks), contract (tui/contract), checks (tui/checks);
//   - dialogs: the stack (stack.go), each dialog (dialogs.go, prompt.go, finalize.go,
//     grants.go, help.go, notices.go), and the requests waiting for the person (requests.go);
//   - the answering rules (answer.go): every answer to a prompt passes the one gate;
//   - shared UI: theme.go, keys.go (the key map, every binding with its help), status.go (the
//     header's status line and waits), view.go (layout and frame).
//
// Dialogs and panes answer one question, capturing (are keys text right now?), through one
// interface (input); the root's capturing asks the top dialog or the focused pane and nothing
// else. A dialog never calls the service or holds the model: it returns a dialogResult whose
// control, delegate or draft request, or typed action (actions.go), the root carries out.
// Results of commands come back as typed messages and are handled by the part they belong to.
package tui

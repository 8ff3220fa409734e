// Package tui is the Bubble Tea dashboard's root: it lays the screen out, owns the focus (the
// selected task's tab, the replay) and the dialog stack, routes every key, and carries out what
// its parts ask. It talks only to core.Service and its events.
//
// Run owns the terminal (alt screen) and feeds the model through one relay goroutine that reads
// a Subscribe(all tasks) stream and sends its events in batches, at most 30 a second (one frame
// each); NewModel gives tests the same model without a terminal.
//
// Each tab and dialog is a component in a package of its own under tui/ — events, review,
// contract, checks, replay, dialog — owning its state, with Update returning what it asks of
// the root as a value (tui/intent) and View drawing it at a size; none imports the root. Below
// them, tui/term holds the theme, text fitting and the frame guard, tui/bind the key map and the
// binding tables that dispatch, the footer and help are read from, and tui/words the wording of
// core's values.
//
// The root's own concerns are small types of this package, each owning its state and told what
// else it needs: the service's calls (commands), where the parts go at the terminal's size
// (layout), the tasks and what is kept of each (taskList, taskData), the requests waiting, the
// waits, the status line, the answer gate, the attention watch, the attachment and today's
// usage. Each tab's glue is a method of the pane that hands it the keys. *Model itself routes
// messages and keys and carries out what its parts and dialogs ask.
//
// A key goes to the top dialog if one is open, else to the focused component, else to the
// root's own two binding tables (task actions and the dashboard's keys). Every answer to a
// worker's request passes one gate (the key must arrive alone, after the prompt's grace), and
// the root is the only part that calls the service; a component's service reads run inside the
// tea.Cmds it returns, through a narrow interface it was given.
package tui

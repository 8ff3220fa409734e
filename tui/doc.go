// Package tui is the Bubble Tea dashboard: live tasks, streamed worker events, keyboard answers to
// permission prompts, diff review and finalize. It talks only to core.Service and its events.
//
// Run owns the terminal (alt screen) and feeds the model through one relay goroutine that reads
// a Subscribe(all tasks) stream and calls program.Send; NewModel gives tests the same model
// without a terminal. Dialogs form a stack and return actions (a Control or Delegate request)
// instead of calling the service; theme and key map are data, and every binding carries its help.
package tui

// Package tui is the Bubble Tea dashboard: live tasks, streamed worker events, keyboard answers to
// permission prompts, diff review and finalize. It talks only to core.Service and its events.
package tui

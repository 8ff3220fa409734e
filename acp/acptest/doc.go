// Package acptest is a scripted fake Reasonix worker, wire-compatible with Reasonix 1.38.11,
// used by tests, by the demo (in-process, over pipes, through Serve) and, as the fake-reasonix
// command, wherever a worker binary is expected (REASONIX_BIN).
//
// It answers like the real worker: the same initialize capabilities, session/new models, modes
// and config options, `_reasonix.io/session/status` snapshots and status_update notifications,
// `gate-N` permission requests with `_meta["reasonix.io"]` argv only for simple shell commands,
// `ask-N-q1` questions, steer dispositions and prompt cancellation. Options.Legacy offers the
// earlier worker generation's option set instead.
//
// A Scenario scripts each prompt turn as a list of steps: text and thought chunks, plans, file
// writes and edits (really performed inside the session cwd, and only there), shell commands
// (never run: their output is scripted), questions, usage reports, and faults — hang, freeze,
// crash, flood, malformed output, a failed turn. Scenarios are JSON files (LoadScenario); with
// none, DefaultScenario plays a small "implement" task.
package acptest

// Package acp is the Agent Client Protocol v1 client for the worker (`reasonix acp` by default,
// or any ACP agent of an acp/agents profile: newline-delimited JSON-RPC on the child's stdio),
// built on github.com/coder/acp-go-sdk. It knows nothing of tasks.
//
// Start launches the worker binary with the confinement flags it advertises, in its own process
// group and with an allowlisted environment, inside a sandbox when LaunchConfig.Confine makes
// one; Connect speaks to an in-process worker over pipes. Worker.Suspend stops every process a
// started worker runs until it is resumed (a no-op for an in-process worker).
// Both check the Reasonix extensions at initialize (status and status_update schema 1, steer)
// and fail with *IncompatibleError naming what is missing — of Reasonix only: any other agent
// (LaunchConfig.Agent, ConnectConfig.Agent) is driven with plain ACP (foreign.go): permission
// requests matched to tool calls by id, turn end and usage from stopReason and usage_update,
// steer as a cancel and a new prompt, a rejection that ends the turn reported as StopRefused,
// and fs/* served inside ConnectConfig.FSRoot (fs.go).
//
// A Worker reads the worker's output itself: every notification is decoded here, in wire order,
// into a typed Event queued for its Session without ever blocking the reader, before any later
// request or response is handed to the SDK. So a permission request always follows its
// tool_call event, and the SDK's bounded notification queue is never used. Sessions are routed
// by id within their Worker only.
//
// Session settings are chosen from what the worker offers (model, tool_approval read-only or
// ask, effort mapped to the nearest offered value, work_mode only where offered, mode normal or
// goal) and reported by Session.Effective. Permission requests go to the session's
// PermissionFunc with a context that ends when the turn is cancelled, and are answered with the
// chosen option or `cancelled`.
//
// When the worker exits, closes its output, writes something that is not JSON-RPC, or is
// closed, every pending call fails and every session's event stream ends with an ErrorEvent
// wrapping ErrWorkerExited, ErrProtocol or ErrWorkerClosed; a session whose consumer stops
// reading ends with ErrFlood. The worker's stderr is kept, redacted, in a bounded ring
// (Worker.Stderr) and never written to our own output.
package acp

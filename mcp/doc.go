// Package mcp serves core.Service to Codex as the stdio MCP server reasonix_worker with exactly
// three tools: reasonix_delegate, reasonix_control and reasonix_inspect.
//
// The package holds no task logic. It speaks the part of MCP Codex uses (initialize, ping,
// tools/list, tools/call, notifications/cancelled, notifications/progress towards Codex, and
// server/discover with the per-request protocol version of 2026-07-28) over its own stdio
// transport, mcp/internal/jsonrpc (whose doc says why it is not mcp-go's server), using the
// mcp-go types. It
// advertises the tools with the schemas Codex already knows (names, types, enums, limits and
// required lists of the earlier bridge; our own descriptions from package assets), validates
// every call's arguments against them, derives the repository authority from Codex's
// codex/sandbox-state-meta request metadata (ParseAuthority), passes the request context to the
// service (which does any waiting), sends notifications/progress while a call runs and renders
// every failure as the error envelope {"error":{code,message,retryable,next_action,details?}}.
// The tests check every result against the advertised output schema.
//
// Initialize and tools/list are answered without waiting for the service, which starts opening
// in the background once tools/list has been answered; tool calls wait for it.
//
// With Options.AskUser (CODEX_REASONIX_PERMISSIONS=ask) and a client whose initialize
// advertises form elicitation, the session gives the service a core.Asker that puts commands
// the policy does not know to the client's user with elicitation/create (elicit.go), the one
// request this server sends to the client.
package mcp

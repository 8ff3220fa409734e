// Package mcp serves core.Service to Codex as the stdio MCP server reasonix_worker with exactly
// three tools: reasonix_delegate, reasonix_control and reasonix_inspect.
//
// The package holds no task logic. It advertises the tools with the schemas Codex already knows
// (names, types, enums, limits and required lists of the earlier bridge; our own descriptions
// from package assets), validates every call against them, derives the repository authority from
// Codex's codex/sandbox-state-meta request metadata (ParseAuthority), passes the request context
// to the service (which does any waiting), sends notifications/progress while a call runs, checks
// each result against the advertised output schema and renders every failure as the error
// envelope {"error":{code,message,retryable,next_action,details?}}.
//
// Initialize and tools/list are answered without waiting for the service, which is opened in the
// background when serving starts; tool calls wait for it.
package mcp

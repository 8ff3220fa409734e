// Package jsonrpc is the stdio transport of the reasonix_worker MCP server: newline-delimited
// JSON-RPC 2.0 with MCP's conventions (no batches, notifications/cancelled withdraws a request,
// responses from the client are never answered). It reads lines, checks the envelope and the id,
// runs each request through a Handler (in order on the read loop, or on its own goroutine with a
// context the client can cancel) and writes the answers; it knows no MCP method. Conn.Call sends
// a request the other way (elicitation/create) with ids of its own ("rx-1", …) and routes the
// client's response back to it; a response to any other id is dropped.
//
// Why not mcp-go's server (server.NewStdioServer). Codex waits for this process at the start of
// every session, and side by side on the same three tools mcp-go's server answered tools/list in
// about twice the time and with 4 MB more memory (BENCHMARKS.md, "MCP start-up"): it builds its
// schema library and general runtime before the first answer. It also answered some input worse
// than this loop does: ids beyond 2^53 lose their digits, a cancelled request is still answered,
// a second request with an id still in flight is accepted, and there is no bound on a line. The
// conformance test (mcp/conformance_test.go) plays one session against both and lists every
// place where the answers differ, with the reason.
//
// When to switch back: when mcp-go builds its schemas lazily (so tools/list no longer pays for
// them at start-up), or when Codex starts using MCP features that mcp-go implements and this
// package does not (resources, prompts, sampling, subscriptions; form elicitation is the one
// server-to-client request served here, through Conn.Call). The conformance
// test then shows what would change on the wire.
package jsonrpc

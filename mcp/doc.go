// Package mcp serves core.Service to Codex as an MCP stdio server with the tools reasonix_delegate,
// reasonix_control and reasonix_inspect.
package mcp

package mcp

import "reasonixctl/mcp/internal/jsonrpc"

// The transport's names under the short ones the tests use.
const (
	codeParseError     = jsonrpc.CodeParseError
	codeInvalidRequest = jsonrpc.CodeInvalidRequest
	codeMethodNotFound = jsonrpc.CodeMethodNotFound
	codeInvalidParams  = jsonrpc.CodeInvalidParams
)

type incoming = jsonrpc.Message

package mcp

import (
	"encoding/json"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"reasonixctl/core"
	"reasonixctl/core/safetext"
)

// An answer a client gives (reasonix_control respond, or its elicitation form) is recorded with
// the client's own name and version from clientInfo, so that its words say through what it came
// ("declined through codex-mcp-client 0.169.0") instead of assuming a person answered: a client
// may answer a form itself, as codex exec declines every one.

// clientLabel is clientInfo as recorded: "name version", one line of inert text, bounded.
func clientLabel(info mcp.Implementation) string {
	label := strings.TrimSpace(safetext.Line(strings.TrimSpace(info.Name + " " + info.Version)))
	if len(label) <= core.MaxClientNameLen {
		return label
	}
	return core.TruncateText(label, core.MaxClientNameLen-len("…")) + "…"
}

// initializeClient reads the client's name from initialize's params.
func initializeClient(params json.RawMessage) string {
	var p struct {
		ClientInfo mcp.Implementation `json:"clientInfo"`
	}
	if unmarshalParams(params, &p) != nil {
		return ""
	}
	return clientLabel(p.ClientInfo)
}

// metaClient reads the client's name from a 2026-07-28 request's _meta, which carries it with
// every request instead of at a handshake.
func metaClient(params json.RawMessage) string {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	var info mcp.Implementation
	if json.Unmarshal(params, &p) != nil || json.Unmarshal(p.Meta[mcp.MetaKeyClientInfo], &info) != nil {
		return ""
	}
	return clientLabel(info)
}

// clientFor names the client a tools/call comes from: its own _meta for 2026-07-28, else what
// initialize said.
func (c *session) clientFor(params json.RawMessage, era requestEra) string {
	if era.modern {
		return metaClient(params)
	}
	c.asker.mu.Lock()
	defer c.asker.mu.Unlock()
	return c.asker.client
}

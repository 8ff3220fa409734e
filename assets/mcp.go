package assets

import (
	_ "embed"
	"strings"
)

var (
	//go:embed mcp/instructions.md
	mcpInstructions string
	//go:embed mcp/delegate.md
	mcpDelegate string
	//go:embed mcp/control.md
	mcpControl string
	//go:embed mcp/inspect.md
	mcpInspect string
)

// MCPInstructions is the guidance the MCP server gives Codex at initialize.
func MCPInstructions() string { return strings.TrimSpace(mcpInstructions) }

// MCPToolDescription returns the description of one MCP tool, or "" for an unknown name.
func MCPToolDescription(tool string) string {
	switch tool {
	case "reasonix_delegate":
		return strings.TrimSpace(mcpDelegate)
	case "reasonix_control":
		return strings.TrimSpace(mcpControl)
	case "reasonix_inspect":
		return strings.TrimSpace(mcpInspect)
	}
	return ""
}

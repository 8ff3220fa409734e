// Package assets embeds the text reasonixctl ships: MCP tool descriptions, server instructions and
// worker prompt templates.
package assets

package tui

import (
	"encoding/json"

	"reasonixctl/core"
)

// contractView is the part of a task contract the dashboard shows; the engine owns validation.
type contractView struct {
	WriteScope     []string         `json:"write_scope"`
	ForbiddenScope []string         `json:"forbidden_scope"`
	Criteria       []core.Criterion `json:"acceptance_criteria"`
}

func parseContract(raw json.RawMessage) contractView {
	var c contractView
	_ = json.Unmarshal(raw, &c)
	return c
}

package contract

import (
	"maps"
	"slices"
	"strings"
)

// Placeholder markers of an unfinished draft (`contract init` writes them for what only a
// person can decide). A text that starts with PlaceholderPrefix, or a path or glob that starts
// with ScopePlaceholderPrefix, is one: such a contract parses, but nobody has decided it yet.
const (
	PlaceholderPrefix      = "TODO:"
	ScopePlaceholderPrefix = "TODO-choose-"
)

// readingOrder is the order of a contract's fields as a person reads them, so placeholders are
// listed in that order.
var readingOrder = []string{
	"schema_version", "objective", "user_outcome", "verified_context", "write_scope", "forbidden_scope",
	"invariants", "non_goals", "acceptance_criteria", "verification", allowedCommandsField,
	fileAssertionsField, "pause_conditions",
}

// Placeholders lists every field of c that still holds a draft placeholder, with its path
// (objective, write_scope.0, acceptance_criteria.2.requirement). A contract with any cannot
// start a task.
func Placeholders(c *Contract) []Issue {
	if c == nil {
		return nil
	}
	var out []Issue
	t := c.tree()
	for _, k := range readingOrder {
		if v, ok := t[k]; ok {
			walkPlaceholders(v, k, &out)
		}
	}
	return out
}

// IsPlaceholder reports whether one text of a contract is a draft placeholder.
func IsPlaceholder(s string) bool {
	s = strings.TrimSpace(s)
	return strings.HasPrefix(s, PlaceholderPrefix) || strings.HasPrefix(s, ScopePlaceholderPrefix)
}

func walkPlaceholders(v any, path string, out *[]Issue) {
	switch t := v.(type) {
	case string:
		if IsPlaceholder(t) {
			*out = append(*out, Issue{Path: path, Message: "still holds the draft's placeholder: " + firstLineOf(t)})
		}
	case []any:
		for i, e := range t {
			walkPlaceholders(e, jsonPath(path, i), out)
		}
	case object:
		for _, k := range slices.Sorted(maps.Keys(t)) {
			walkPlaceholders(t[k], jsonPath(path, k), out)
		}
	}
}

func firstLineOf(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > 120 {
		s = string(r[:120]) + "…"
	}
	return s
}

package core

import (
	"strconv"

	"reasonixctl/core/gitx"
)

// validTaskID keeps task ids usable as branch names and directory names.
func validTaskID(id string) bool { return gitx.ValidTaskID(id) == nil }

func pathIndex(field string, i int) string { return field + "." + strconv.Itoa(i) }

func invalidRequest(message string, issues []Issue) *Error {
	return Errorf(CodeInvalidRequest, map[string]any{"issues": issues}, "%s", message)
}

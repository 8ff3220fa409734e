package core

import (
	"strconv"

	"reasonixctl/core/gitx"
)

// ValidTaskID keeps task ids usable as branch names and directory names.
func ValidTaskID(id string) bool { return gitx.ValidTaskID(id) == nil }

// PathIndex names element i of a list field in an issue's path (field.i).
func PathIndex(field string, i int) string { return field + "." + strconv.Itoa(i) }

// InvalidRequest is the invalid_request error for a request with these issues.
func InvalidRequest(message string, issues []Issue) *Error {
	return Errorf(CodeInvalidRequest, &IssueList{Issues: issues}, "%s", message)
}

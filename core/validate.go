package core

import (
	"regexp"
	"strconv"
	"strings"
)

var taskIDPattern = regexp.MustCompile(TaskIDPattern)

// validTaskID keeps task ids usable as branch names and directory names.
func validTaskID(id string) bool {
	return taskIDPattern.MatchString(id) && !strings.Contains(id, "..") &&
		!strings.HasSuffix(id, ".lock") && id != "."
}

func pathIndex(field string, i int) string { return field + "." + strconv.Itoa(i) }

func invalidRequest(message string, issues []Issue) *Error {
	return Errorf(CodeInvalidRequest, map[string]any{"issues": issues}, "%s", message)
}

package sandbox

import "fmt"

// Error codes, from the specification's closed set.
const (
	CodeUnavailable    = "sandbox_unavailable"
	CodeInvalidRequest = "invalid_request"
	CodeInternal       = "internal_error"
)

// Error is every error Run and BuildEnv return.
type Error struct {
	Code    string
	Message string
	Err     error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return e.Code + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

func invalid(format string, args ...any) *Error {
	return &Error{Code: CodeInvalidRequest, Message: fmt.Sprintf(format, args...)}
}

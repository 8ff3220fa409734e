package core

import (
	"context"
)

// LogReader reads the logs verification wrote, a page at a time. It is separate from Service
// so that a front end attached through another transport can offer it or not: the dashboard
// asks for it by type assertion and, without it, names the log's path instead.
type LogReader interface {
	// VerificationLog returns up to limit bytes of the log of verification id of the task's
	// last finalize attempt, from offset. The log is returned as stored (already redacted).
	VerificationLog(ctx context.Context, taskID, id string, offset, limit int64) (LogPage, error)
}

// MaxLogPage bounds the bytes one VerificationLog call returns, whatever limit asks for.
const MaxLogPage = 256 << 10

// LogPage is one page of a verification log.
type LogPage struct {
	TaskID string `json:"task_id"`
	ID     string `json:"id"`
	Path   string `json:"path"`
	Offset int64  `json:"offset"`
	Data   string `json:"data"`
	Size   int64  `json:"size"` // the whole log's size
	EOF    bool   `json:"eof"`  // the page reaches the end of the log
}

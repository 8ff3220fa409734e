package core

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

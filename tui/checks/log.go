package checks

import (
	"context"
	"errors"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"reasonixctl/core"
	"reasonixctl/core/safetext"
	"reasonixctl/tui/term"
)

// maxLogBytes bounds how much of one verification log the tab holds. Verification stores at
// most 4 MiB of a command's output, so this is the whole log.
const maxLogBytes = 4 << 20

// LogReader serves verification logs a page at a time: core.Service's VerificationLog.
type LogReader interface {
	VerificationLog(ctx context.Context, taskID, id string, offset, limit int64) (core.LogPage, error)
}

// LogRead is a verification log read for task TaskID's tab; the root hands it to that task's
// tab.
type LogRead struct {
	TaskID    string
	key       string
	text      string
	size      int64
	truncated bool
	err       error
}

// checkLog is one verification log as the tab holds it.
type checkLog struct {
	loading   bool
	text      string
	size      int64
	truncated bool
	err       error

	lines []string // wrapped to width
	width int
}

// logKey names one log of one attempt: a new finalize writes the log again.
func logKey(v core.VerificationResult) string {
	return v.ID + "\x00" + v.SHA256 + "\x00" + v.FinishedAt
}

var errNoReader = errors.New("this dashboard cannot read verification logs")

// readLog reads a log page by page, up to maxLogBytes. It runs in a tea.Cmd.
func readLog(ctx context.Context, logs LogReader, taskID, id, key string) LogRead {
	if logs == nil {
		return LogRead{TaskID: taskID, key: key, err: errNoReader}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var b strings.Builder
	var off int64
	for {
		page, err := logs.VerificationLog(ctx, taskID, id, off, core.MaxLogPage)
		if err != nil {
			return LogRead{TaskID: taskID, key: key, err: err}
		}
		b.WriteString(page.Data)
		off += int64(len(page.Data))
		if page.EOF || page.Data == "" {
			return LogRead{TaskID: taskID, key: key, text: b.String(), size: page.Size}
		}
		if off >= maxLogBytes {
			return LogRead{TaskID: taskID, key: key, text: b.String(), size: page.Size, truncated: true}
		}
	}
}

// read starts reading check id's log, kept under key.
func (m Model) read(id, key string) tea.Cmd {
	ctx, logs, taskID := m.env.Ctx, m.env.Logs, m.taskID
	return func() tea.Msg { return readLog(ctx, logs, taskID, id, key) }
}

// hardWrap cuts a line into pieces of at most w columns.
func hardWrap(line string, w int, dst []string) []string {
	if term.TextWidth(line) <= w {
		return append(dst, line)
	}
	for line != "" {
		piece := ansi.Truncate(line, w, "")
		if piece == "" {
			piece = line[:1]
		}
		dst = append(dst, piece)
		line = line[len(piece):]
	}
	return dst
}

// wrapLog splits a log into display lines of at most w columns. The log is the worker's: it is
// sanitized here, before anything measures or draws it.
func wrapLog(text string, w int) []string {
	text = safetext.Sanitize(strings.TrimRight(text, "\n"))
	var out []string
	for _, l := range strings.Split(text, "\n") {
		out = hardWrap(l, max(w, 1), out)
	}
	return out
}

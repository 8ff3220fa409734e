package engine

import (
	"reasonixctl/core"

	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// VerificationLog implements core.Service. Only a log the task's record lists can be read, and it
// is opened at the place verification writes it, never at a path taken from stored data.
func (e *Engine) VerificationLog(ctx context.Context, taskID, id string, offset, limit int64) (core.LogPage, error) {
	if offset < 0 || limit <= 0 {
		return core.LogPage{}, core.Errorf(core.CodeInvalidRequest, &core.PageRange{Offset: offset, Limit: limit},
			"offset must be at least 0 and limit more than 0")
	}
	limit = min(limit, core.MaxLogPage)
	r, err := e.load(taskID)
	if err != nil {
		return core.LogPage{}, err
	}
	var v *core.VerificationResult
	for i := range r.Verification {
		if r.Verification[i].ID == id {
			v = &r.Verification[i]
		}
	}
	if v == nil {
		return core.LogPage{}, core.Errorf(core.CodeInvalidRequest, &core.UnknownCheck{Verification: id},
			"task %s has no verification %q in its last finalize attempt", taskID, id)
	}
	path := e.verificationLogPath(taskID, id)
	page := core.LogPage{TaskID: taskID, ID: id, Path: path, Offset: offset}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return core.LogPage{}, core.Errorf(core.CodeInvalidState, &core.LogGone{LogPath: path},
			"the log of verification %s is gone (an archived task keeps no logs): %s", id, path)
	}
	if err != nil {
		return core.LogPage{}, core.Errorf(core.CodeInternalError, nil, "verification log: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return core.LogPage{}, core.Errorf(core.CodeInternalError, nil, "verification log: %w", err)
	}
	page.Size = st.Size()
	if offset >= page.Size {
		page.Offset, page.EOF = page.Size, true
		return page, nil
	}
	buf := make([]byte, min(limit, page.Size-offset))
	n, err := f.ReadAt(buf, offset)
	if err != nil && !errors.Is(err, io.EOF) {
		return core.LogPage{}, core.Errorf(core.CodeInternalError, nil, "verification log: %w", err)
	}
	page.Data = string(buf[:n])
	page.EOF = offset+int64(n) >= page.Size
	return page, nil
}

// verificationLogPath is where verify writes the log of verification id.
func (e *Engine) verificationLogPath(taskID, id string) string {
	return filepath.Join(e.cfg.StateDir, "verification", taskID, id+".log")
}

package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
)

// The agent's file system requests (fs/read_text_file, fs/write_text_file), served only when
// the worker was connected with an FSRoot (the worktree) and only inside it. A path is opened
// through an os.Root of the folder, so no link, `..` or absolute path leads out of it; the
// repository's .git is never read or written. A missing file reads as "" (Gemini reads a file
// before creating it, and an error there breaks the write). A write is served only under a
// permission the turn granted for that path, or after a permission asked for it here.

// maxFSBytes bounds a file read or written through fs/*.
const maxFSBytes = 8 << 20

func fsError(format string, args ...any) error {
	return &sdk.RequestError{Code: CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// fsPath turns an absolute path the agent sent into one relative to the root, refusing any
// that is not inside it.
func fsPath(root, p string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", fsError("fs: path %q is not absolute", p)
	}
	rel, err := filepath.Rel(root, filepath.Clean(p))
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
		return "", fsError("fs: %q is outside the worktree %s", p, root)
	}
	if first, _, _ := strings.Cut(rel, string(filepath.Separator)); first == ".git" {
		return "", fsError("fs: %q is the repository's own metadata", p)
	}
	return rel, nil
}

func (h clientHandler) fsSession(sid sdk.SessionId) (*Session, error) {
	if h.w.fsRoot == "" {
		return nil, nil
	}
	s := h.w.session(string(sid))
	if s == nil {
		return nil, fsError("fs: unknown session %q", sid)
	}
	return s, nil
}

func (h clientHandler) ReadTextFile(_ context.Context, p sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	s, err := h.fsSession(p.SessionId)
	if s == nil && err == nil {
		return sdk.ReadTextFileResponse{}, unsupported("fs/read_text_file")
	}
	if err != nil {
		return sdk.ReadTextFileResponse{}, err
	}
	text, err := readInRoot(h.w.fsRoot, p.Path)
	if err != nil {
		return sdk.ReadTextFileResponse{}, err
	}
	return sdk.ReadTextFileResponse{Content: sliceLines(text, p.Line, p.Limit)}, nil
}

func readInRoot(root, p string) (string, error) {
	rel, err := fsPath(root, p)
	if err != nil {
		return "", err
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return "", fsError("fs: %v", err)
	}
	defer r.Close()
	f, err := r.Open(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fsError("fs: reading %q: %v", p, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return "", fsError("fs: %q is not a regular file", p)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxFSBytes+1))
	if err != nil {
		return "", fsError("fs: reading %q: %v", p, err)
	}
	if len(b) > maxFSBytes {
		return "", fsError("fs: %q is larger than %d bytes", p, maxFSBytes)
	}
	return string(b), nil
}

// sliceLines is text from line (1-based) on, at most limit lines.
func sliceLines(text string, line, limit *int) string {
	if line == nil && limit == nil {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	from := 0
	if line != nil && *line > 1 {
		from = min(*line-1, len(lines))
	}
	lines = lines[from:]
	if limit != nil && *limit >= 0 && *limit < len(lines) {
		lines = lines[:*limit]
	}
	return strings.Join(lines, "")
}

func (h clientHandler) WriteTextFile(ctx context.Context, p sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	s, err := h.fsSession(p.SessionId)
	if s == nil && err == nil {
		return sdk.WriteTextFileResponse{}, unsupported("fs/write_text_file")
	}
	if err != nil {
		return sdk.WriteTextFileResponse{}, err
	}
	rel, err := fsPath(h.w.fsRoot, p.Path)
	if err != nil {
		return sdk.WriteTextFileResponse{}, err
	}
	if len(p.Content) > maxFSBytes {
		return sdk.WriteTextFileResponse{}, fsError("fs: content for %q is larger than %d bytes", p.Path, maxFSBytes)
	}
	if err := checkInRoot(h.w.fsRoot, rel); err != nil {
		return sdk.WriteTextFileResponse{}, fsError("fs: writing %q: %v", p.Path, err)
	}
	if !s.takeGrant(p.Path) && !s.askWrite(ctx, p.Path, p.Content) {
		return sdk.WriteTextFileResponse{}, fsError("fs: writing %q was not permitted", p.Path)
	}
	if err := writeInRoot(h.w.fsRoot, rel, p.Content); err != nil {
		return sdk.WriteTextFileResponse{}, fsError("fs: writing %q: %v", p.Path, err)
	}
	return sdk.WriteTextFileResponse{}, nil
}

// checkInRoot refuses, before anyone is asked, a path that an existing link leads out of the
// root: the file or its folder must be missing or resolve inside.
func checkInRoot(root, rel string) error {
	r, err := os.OpenRoot(root)
	if err != nil {
		return err
	}
	defer r.Close()
	for _, p := range []string{filepath.Dir(rel), rel} {
		if _, err := r.Stat(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

func writeInRoot(root, rel, content string) error {
	r, err := os.OpenRoot(root)
	if err != nil {
		return err
	}
	defer r.Close()
	if dir := filepath.Dir(rel); dir != "." {
		if err := r.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	f, err := r.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(content); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// askWrite puts a write no permission covered to the session's permission function, as an
// edit request of its own, and records it like any other.
func (s *Session) askWrite(sdkCtx context.Context, path, content string) bool {
	s.mu.Lock()
	s.foreign.seq++
	id := fmt.Sprintf("fs-write-%d", s.foreign.seq)
	parent := s.turnCtx
	s.mu.Unlock()
	if parent == nil {
		parent = s.ctx
	}
	req := PermissionRequest{SessionID: s.id, ToolCallID: id, CallID: id, Title: "Write " + path, ToolKind: "edit",
		Locations: []string{path}, Diffs: []Diff{{Path: path, NewText: content}}, FSWrite: true,
		Options:   []PermissionOption{{ID: "allow", Name: "Allow", Kind: "allow_once"}, {ID: "reject", Name: "Reject", Kind: "reject_once"}},
		Delivered: s.q.drained()}
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	stop := context.AfterFunc(sdkCtx, cancel)
	defer stop()
	out := req.Choose("reject_once")
	if s.onPermission != nil {
		out = s.onPermission(ctx, req)
	}
	if ctx.Err() != nil || !slices.ContainsFunc(req.Options, func(o PermissionOption) bool { return o.ID == out.OptionID }) {
		out = PermissionOutcome{}
	}
	s.deliverLate(PermissionEvent{SessionID: s.id, Request: req, Outcome: out})
	return out.OptionID == "allow"
}

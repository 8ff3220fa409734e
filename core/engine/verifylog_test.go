package engine

import (
	"reasonixctl/core"

	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// A failed check's error quotes the end of its log and where it is; the whole log reads back
// through VerificationLog in bounded pages, byte for byte as stored.
func TestVerificationLogPagesTheLastAttempt(t *testing.T) {
	h := newHarness(t, nil)
	c := strings.Replace(happyContract, `{"id": "check", "argv": ["test", "-f", "result.txt"], "proves": ["result"]}`,
		`{"id": "count", "argv": ["seq", "1", "100000"], "proves": ["result"]},
		 {"id": "check", "argv": ["ls", "result.txt", "missing.txt"], "proves": ["result"]}`, 1)
	res, err := h.delegate("logs", func(r *core.DelegateRequest) { r.Contract = json.RawMessage(c) })
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.finalize(res.TaskView, "looks-right")
	ce := mustCode(t, err, core.CodeVerificationFailed)
	path := h.e.verificationLogPath("logs", "check")
	if !strings.Contains(ce.Message, "exited 2 (log: "+path+")") || !strings.Contains(ce.Message, "result.txt\n\nls: ") {
		t.Fatalf("the failure does not quote the log's tail and path:\n%s", ce.Message)
	}
	ctx := context.Background()
	var all strings.Builder
	var off int64
	pages := 0
	for {
		p, err := h.e.VerificationLog(ctx, "logs", "count", off, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(p.Data)) > core.MaxLogPage || p.Path != h.e.verificationLogPath("logs", "count") || p.Offset != off {
			t.Fatalf("page at %d: %d bytes, path %s, offset %d", off, len(p.Data), p.Path, p.Offset)
		}
		all.WriteString(p.Data)
		off += int64(len(p.Data))
		pages++
		if p.EOF {
			if p.Size != off {
				t.Fatalf("size %d, read %d", p.Size, off)
			}
			break
		}
		if pages > 100 {
			t.Fatal("the pages never end")
		}
	}
	text := all.String()
	if pages < 2 {
		t.Fatalf("a %d-byte log read in %d page(s)", len(all.String()), pages)
	}
	for _, want := range []string{`$ ["seq","1","100000"]`, "exit: 0 timeout: false", "\n1\n2\n", "\n100000\n"} {
		if !strings.Contains(text, want) {
			t.Fatalf("the log lacks %q", want)
		}
	}
	small, err := h.e.VerificationLog(ctx, "logs", "count", 10, 5)
	if err != nil || small.Data != text[10:15] || small.EOF {
		t.Fatalf("a 5-byte page at 10: %+v %v", small, err)
	}
	end, err := h.e.VerificationLog(ctx, "logs", "count", 1<<40, 5)
	if err != nil || end.Data != "" || !end.EOF || end.Offset != int64(len(text)) {
		t.Fatalf("a page past the end: %+v %v", end, err)
	}
	for _, tc := range []struct {
		task, id      string
		offset, limit int64
		code          core.Code
	}{
		{"logs", "nope", 0, 10, core.CodeInvalidRequest},
		{"logs", "../../x", 0, 10, core.CodeInvalidRequest},
		{"logs", "check", -1, 10, core.CodeInvalidRequest},
		{"logs", "check", 0, 0, core.CodeInvalidRequest},
		{"missing", "check", 0, 10, core.CodeTaskNotFound},
	} {
		if _, err := h.e.VerificationLog(ctx, tc.task, tc.id, tc.offset, tc.limit); err == nil || core.AsError(err).Code != tc.code {
			t.Fatalf("%s: want %s, got %v", fmt.Sprint(tc), tc.code, err)
		}
	}
}

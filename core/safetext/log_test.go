package safetext

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

// A log line carries the worker's words as inert text: no escape sequence, C1 control or line
// separator reaches the file a person tails, whether it came as the message, a value, an error,
// a list or a group.
func TestLogHandlerWritesInertText(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(NewLogHandler(slog.NewTextHandler(&buf, nil)))
	hostile := "ok\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b[2J\u2028fake line\u0085\u202Eevil\u009b31m\xff"
	log.With("cmd", hostile).WithGroup("g\x1b[1m").Info("worker said "+hostile,
		"err", errors.New(hostile), "argv", []string{"sh", hostile}, "n", 3,
		slog.Group("inner", "line", hostile))
	out := buf.String()
	for _, bad := range []string{"\x1b", "\x07", "\u2028", "\u0085", "\u202E", "\u009b"} {
		if strings.Contains(out, bad) {
			t.Errorf("the log holds %q raw:\n%s", bad, out)
		}
	}
	if strings.Count(out, "\n") != 1 {
		t.Errorf("one record made %d lines:\n%s", strings.Count(out, "\n"), out)
	}
	for _, want := range []string{"␛", "⟨U+202E⟩", "⟨U+2028⟩", "n=3"} {
		if !strings.Contains(out, want) {
			t.Errorf("the log lacks %q:\n%s", want, out)
		}
	}
}

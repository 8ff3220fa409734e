package engine

import (
	"reasonixctl/core"

	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParseCursor checks the two promises of signed cursors: a string the supervisor hands back
// is either exactly a cursor this key issued or refused with invalid_request, and an issued cursor
// changed in any way (or issued by another state directory) is refused, never read differently.
func FuzzParseCursor(f *testing.F) {
	key := []byte("fuzz-cursor-key-0123456789abcdef")
	otherKey := []byte("another-state-directory-key-0000")
	issued := signCursor(key, pageCursor{V: 1, TaskID: "t1", Section: "events", Offset: 1024, Digest: textDigest("x")})
	f.Add(issued, "t1", "events", 1024, "x", uint16(0), uint8(0), "")
	f.Add(issued, "t1", "diff", 7, "", uint16(len(issued)-1), uint8(1), "A")
	f.Add("", "", "", 0, "", uint16(3), uint8(0), ".")
	f.Add("e30.AAAA", "task", "summary", -1, "text", uint16(10), uint8(2), "\n")
	f.Add(issued+"x", "é", "events", 1<<40, "ü", uint16(200), uint8(9), "==")
	f.Fuzz(func(t *testing.T, s, taskID, section string, offset int, text string, pos uint16, cut uint8, insert string) {
		// Arbitrary input: refused cleanly, or byte for byte what the key would issue for it.
		if c, err := parseCursor(key, s); err != nil {
			requireCursorError(t, s, err)
		} else if signCursor(key, c) != s {
			t.Fatalf("accepted %q, which this key never issues (it issues %q for %+v)", s, signCursor(key, c), c)
		}

		// Round trip of a cursor this key issued.
		want := pageCursor{V: 1, TaskID: taskID, Section: section, Offset: offset, Digest: textDigest(text)}
		good := signCursor(key, want)
		got, err := parseCursor(key, good)
		switch {
		case offset < 0:
			if err == nil {
				t.Fatalf("accepted a cursor with negative offset %d", offset)
			}
			requireCursorError(t, good, err)
		case err != nil:
			t.Fatalf("refused its own cursor %q for %+v: %v", good, want, err)
		case utf8.ValidString(taskID) && utf8.ValidString(section) && got != want:
			t.Fatalf("round trip changed the cursor: got %+v, want %+v", got, want)
		}

		// Another state directory's key refuses it.
		if c, err := parseCursor(otherKey, good); err == nil {
			t.Fatalf("a cursor signed with another key was accepted as %+v", c)
		}

		// Any change to an issued cursor is refused.
		p := min(int(pos), len(good))
		end := min(p+int(cut), len(good))
		tampered := good[:p] + insert + good[end:]
		if tampered == good {
			return
		}
		if c, err := parseCursor(key, tampered); err == nil {
			t.Fatalf("tampered cursor %q (from %q) was accepted as %+v", tampered, good, c)
		} else {
			requireCursorError(t, tampered, err)
		}
	})
}

func requireCursorError(t *testing.T, s string, err error) {
	t.Helper()
	var e *core.Error
	if !errors.As(err, &e) || e.Code != core.CodeInvalidRequest || !strings.HasPrefix(e.Message, "invalid cursor: ") {
		t.Fatalf("cursor %q refused with %#v, want invalid_request", s, err)
	}
}

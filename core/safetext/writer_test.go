package safetext

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// What a command prints reaches the terminal inert, even when a write ends inside a character.
func TestWriterShowsControlsAndKeepsTabs(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	hostile := "id\tsh -c x\x1b]52;c;cHduZWQ=\x07\x1b[2J\u202Efdp.exe\u0085next\n"
	b := []byte(hostile + "é")
	for i := range b { // one byte at a time: every sequence is split
		if _, err := w.Write(b[i : i+1]); err != nil {
			t.Fatal(err)
		}
	}
	got := buf.String()
	want := "id\tsh -c x␛]52;c;cHduZWQ=␇␛[2J⟨U+202E⟩fdp.exe⟨U+0085⟩next\né"
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// JSON printed for a person or a program keeps the data exactly, with every control and hidden
// character escaped.
func TestEscapeJSONKeepsTheDataInert(t *testing.T) {
	in := map[string]string{"argv": "rm\u202E -rf\u2028\u0085\x1b[2J\U000E0041\u3164"}
	raw, _ := json.Marshal(in)
	out := EscapeJSON(raw)
	for _, bad := range []string{"\u202E", "\u2028", "\u0085", "\x1b", "\U000E0041", "\u3164"} {
		if strings.Contains(string(out), bad) {
			t.Errorf("escaped JSON holds %q raw: %s", bad, out)
		}
	}
	var back map[string]string
	if err := json.Unmarshal(out, &back); err != nil || back["argv"] != in["argv"] {
		t.Fatalf("escaped JSON decodes to %q (%v), want %q", back["argv"], err, in["argv"])
	}
}

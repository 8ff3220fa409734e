package engine

import (
	"bytes"
	"strings"
	"testing"

	"reasonixctl/core"
)

// Text is encoded once, redacted as it is: the bytes are those of the round trip through a
// decoded value that every other event's data takes, secrets, HTML, long and broken text alike.
func TestTextDataEncodesAsTheRoundTrip(t *testing.T) {
	texts := []string{
		"", "word 40 of the streamed answer. ", "a <b> & c \u2028 \u2029 \x00 \t\n\"quoted\" \\ é 中文 😀",
		"token Bearer abc.def= and sk-abcdefghijklmnopqrstu and ghp_abcdefghijklmnopqrstuvwxyz here",
		"-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----", "BEARER  xyz", "AKIAABCDEFGHIJKLMNOP.",
		strings.Repeat("long text ", 1000), strings.Repeat("é", 9000), "broken \xff\xfe utf-8 sk-abcdefghijklmnopqrstu",
		strings.Repeat("\xe2\x82", 5000),
	}
	for _, s := range texts {
		got, err := redactData(core.TextData{Text: s})
		if err != nil {
			t.Fatal(err)
		}
		want, err := redactJSON(core.TextData{Text: s})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("text %.40q: %.200s, the round trip writes %.200s", s, got, want)
		}
	}
}

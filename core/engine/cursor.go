package engine

import (
	"reasonixctl/core"

	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// pageCursor points into one inspect section's text. It is signed so a supervisor can only hand
// back cursors this state directory issued, and it names the digest of the text it paged so a
// cursor into text that has since changed is refused instead of returning a spliced page.
type pageCursor struct {
	V       int    `json:"v"`
	TaskID  string `json:"taskId"`
	Section string `json:"section"`
	Offset  int    `json:"offset"`
	Digest  string `json:"digest"`
}

func textDigest(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

func signCursor(key []byte, c pageCursor) string {
	body, _ := json.Marshal(c)
	payload := base64.RawURLEncoding.EncodeToString(body)
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(payload))
	return payload + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

func parseCursor(key []byte, s string) (pageCursor, error) {
	bad := func(why string) (pageCursor, error) {
		return pageCursor{}, core.Errorf(core.CodeInvalidRequest, &core.BadCursor{Cursor: why}, "invalid cursor: %s", why)
	}
	payload, sig, ok := strings.Cut(s, ".")
	if !ok {
		return bad("malformed")
	}
	// The signature is compared as text: base64 decoding skips CR and LF and ignores unused
	// trailing bits, so comparing decoded bytes would accept altered cursor strings.
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(payload))
	if !hmac.Equal([]byte(sig), []byte(base64.RawURLEncoding.EncodeToString(mac.Sum(nil)))) {
		return bad("signature does not match")
	}
	body, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return bad("malformed payload")
	}
	var c pageCursor
	if err := json.Unmarshal(body, &c); err != nil || c.V != 1 || c.Offset < 0 {
		return bad("malformed payload")
	}
	return c, nil
}

// pageText cuts text[offset:] to at most budget bytes on a UTF-8 boundary. It returns the page
// and the offset of what follows (len(text) when nothing does). A budget too small for one
// whole character is output_limit_exceeded.
func pageText(text string, offset, budget int) (string, int, error) {
	if offset > len(text) {
		offset = len(text)
	}
	rest := text[offset:]
	if len(rest) <= budget {
		return rest, len(text), nil
	}
	end := budget
	for end > 0 && !utf8.RuneStart(rest[end]) {
		end--
	}
	if end == 0 {
		return "", offset, core.Errorf(core.CodeOutputLimitExceeded, nil, "max_bytes is too small for the next character")
	}
	return rest[:end], offset + end, nil
}

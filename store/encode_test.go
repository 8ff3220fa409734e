package store

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// encodeEvent writes what encoding/json writes for storedEvent, with the data compacted as
// json.Compact does, for every kind of data and type.
func TestEncodeEventIsEncodingJSONs(t *testing.T) {
	now := time.Date(2026, 12, 7, 1, 2, 3, 456789000, time.UTC)
	datas := []string{
		``, `{}`, `null`, `{"text":"word 40 of the streamed answer. "}`,
		"{ \"text\" : \"spaced\" ,\n \"n\": [1, 2.50, -3e10] }",
		`{"text":"a <b> & c"}`, "{\"text\":\"line\u2028sep\u2029para\"}", `{"text":"\u003c escaped \u0026"}`,
		`{"text":"é ü 中文 😀","k":true,"z":null}`, `"just a string"`, `[1,{"a":[]}]`, `12.5e3`,
	}
	types := []string{"agent_message", "tool_call", `a"quote`, "a<b>&c", "tab\there", "ünï", "x\u2028y"}
	for _, typ := range types {
		for _, d := range datas {
			val, data, err := encodeEvent(now, NewEvent{Type: typ, Data: json.RawMessage(d)})
			if err != nil {
				t.Fatalf("encodeEvent(%q, %q): %v", typ, d, err)
			}
			var want json.RawMessage
			if d != "" {
				var buf bytes.Buffer
				if err := json.Compact(&buf, []byte(d)); err != nil {
					t.Fatal(err)
				}
				want = buf.Bytes()
			}
			wantVal, _ := json.Marshal(storedEvent{Time: now, Type: typ, Data: want})
			if !bytes.Equal(val, wantVal) || !bytes.Equal(data, want) {
				t.Errorf("encodeEvent(%q, %q) = %s, %s; want %s, %s", typ, d, val, data, wantVal, want)
			}
			// The data may share the stored value's bytes: appending to it must not reach them.
			if _ = append(data, 'x'); !bytes.Equal(val, wantVal) {
				t.Errorf("encodeEvent(%q, %q): appending to the data changed the stored value to %s", typ, d, val)
			}
		}
	}
	for _, bad := range []string{`{`, `{"a":}`, `nul`, `{"a":1}}`} {
		if _, _, err := encodeEvent(now, NewEvent{Type: "x", Data: json.RawMessage(bad)}); err == nil {
			t.Errorf("encodeEvent(%q) accepted invalid JSON", bad)
		}
	}
}

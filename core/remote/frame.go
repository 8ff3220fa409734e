package remote

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"

	"reasonixctl/core"
)

// MarshalAppend lets Connect write a message into a buffer it reuses instead of one allocated
// for it. A Subscribe frame, one for every batch of journal events a dashboard receives, is
// written by appendFrame; every other message as Marshal writes it.
func (c jsonCodec) MarshalAppend(dst []byte, v any) ([]byte, error) {
	if f, ok := v.(*subscribeFrame); ok {
		if out, ok := appendFrame(dst, f); ok {
			return out, nil
		}
	}
	b, err := c.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(dst, b...), nil
}

// appendFrame appends f's JSON as Marshal writes it, byte for byte, without encoding/json's
// reflection and its copies of each event's data; ok is false, with dst unchanged, for what it
// leaves to Marshal: an empty but present event list, text Marshal would escape, a time Marshal
// refuses, data that is not valid JSON.
func appendFrame(dst []byte, f *subscribeFrame) ([]byte, bool) {
	if f.Events != nil && len(f.Events) == 0 {
		return dst, false
	}
	start := len(dst)
	dst = append(dst, '{')
	if f.Ready {
		dst = append(dst, `"ready":true`...)
	}
	if len(f.Events) > 0 {
		if f.Ready {
			dst = append(dst, ',')
		}
		dst = append(dst, `"events":[`...)
		for i := range f.Events {
			if i > 0 {
				dst = append(dst, ',')
			}
			var ok bool
			if dst, ok = appendEvent(dst, &f.Events[i]); !ok {
				return dst[:start], false
			}
		}
		dst = append(dst, ']')
	}
	return append(dst, '}'), true
}

func appendEvent(dst []byte, ev *core.Event) ([]byte, bool) {
	if !plainString(ev.TaskID) || !plainString(ev.Type) || ev.Time.Year() < 0 || ev.Time.Year() > 9999 {
		return dst, false
	}
	dst = append(dst, `{"task_id":"`...)
	dst = append(dst, ev.TaskID...)
	dst = append(dst, `","seq":`...)
	dst = strconv.AppendUint(dst, ev.Seq, 10)
	dst = append(dst, `,"timestamp":"`...)
	dst = ev.Time.AppendFormat(dst, time.RFC3339Nano)
	dst = append(dst, `","type":"`...)
	dst = append(dst, ev.Type...)
	dst = append(dst, '"')
	if len(ev.Data) > 0 {
		// Marshal compacts a raw value and escapes <, >, & and U+2028/U+2029 in it.
		if bytes.ContainsAny(ev.Data, "<>&") || bytes.Contains(ev.Data, []byte("\u2028")) || bytes.Contains(ev.Data, []byte("\u2029")) {
			return dst, false
		}
		dst = append(dst, `,"data":`...)
		buf := bytes.NewBuffer(dst)
		if json.Compact(buf, ev.Data) != nil {
			return dst, false
		}
		dst = buf.Bytes()
	}
	return append(dst, '}'), true
}

// plainString reports whether encoding/json writes s as it is between quotes: printable ASCII
// without a quote, a backslash or the characters it escapes for HTML.
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

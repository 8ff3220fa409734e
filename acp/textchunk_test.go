package acp

import (
	"bytes"
	"reflect"
	"testing"
)

var textChunkLines = []string{
	`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hello \u003cb\u003e \n"}}}}`,
	`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"é 😀","annotations":{}}}}}`,
	`{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"user_message_chunk","content":{"type":"text"}}}}`,
	`{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"image","data":"x"}}}}`,
	`{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":null}}}`,
	`{"method":"session/update","params":{"sessionId":"","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}}`,
	`{"id":1,"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}}`,
	`{"id":null,"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}}`,
	`{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"},"title":5}}}`,
	`{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":"text"}}}`,
	// Repeated objects: the steps keep the last, a one-pass decode would merge them.
	`{"method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}},"params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"y"}}}}`,
	`{"method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}},"Update":{"content":{"text":"y"}}}}`,
	`{"method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"},"CONTENT":{"text":"y"}}}}`,
	`{"method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}},"paramſ":{"sessionId":"b"}}`,
	`{"method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}},"\u0070arams":{"sessionId":"b"}}`,
	`{"method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"},"cont\u0065nt":{"text":"y"}}}}`,
	`{"method":"session/update","params":{"sessionId":"a","sessionId":"b","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x","text":"y"}}}}`,
	`{"method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"tool_call","toolCallId":"c","title":"_chunk\""}}}`,
	`{"method":"session/update","params":null}`,
	`{"method":"session/update","params":[1]}`,
	`{"method":"Session/Update","params":{"sessionId":"a","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}}`,
}

// A text chunk decoded in one pass is the event the three steps make of the same line, and any
// line the one pass declines decodes as before.
func TestTextChunkIsWhatTheStepsMake(t *testing.T) {
	for _, l := range textChunkLines {
		checkTextChunk(t, []byte(l))
	}
	// The lines a streaming worker writes take the one pass.
	for _, l := range textChunkLines[:3] {
		if _, ok := decodeTextChunk([]byte(l)); !ok {
			t.Errorf("%s: not decoded in one pass", l)
		}
	}
}

func FuzzTextChunkIsWhatTheStepsMake(f *testing.F) {
	for _, l := range textChunkLines {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) { checkTextChunk(t, line) })
}

func checkTextChunk(t *testing.T, line []byte) {
	t.Helper()
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return
	}
	c, ok := decodeTextChunk(trimmed)
	if !ok {
		return
	}
	want, err := decodeEnvelope(trimmed)
	if err != nil {
		t.Fatalf("%s: one pass made %#v, the steps refuse it: %v", line, c, err)
	}
	if got := (inbound{class: classNotification, method: methodSessionUpdate, event: c}); !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: one pass made %#v, the steps %#v", line, got, want)
	}
}

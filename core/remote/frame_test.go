package remote

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"reasonixctl/core"
)

// A Subscribe frame written by hand is what the codec's Marshal writes, byte for byte, for
// every kind of event; what the hand-written form leaves to Marshal comes out the same too.
func TestFrameIsMarshalsBytes(t *testing.T) {
	times := []time.Time{
		time.Date(2026, 12, 7, 1, 2, 3, 456789000, time.UTC), time.Date(2026, 12, 7, 1, 2, 3, 0, time.UTC),
		time.Date(2026, 1, 2, 3, 4, 5, 1, time.FixedZone("x", -7*3600-1800)), {}, time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	datas := []string{``, `{"text":"word 40 of the streamed answer. "}`, "{ \"text\" : \"spaced\",\n \"n\": [1, 2.50] }",
		`{"text":"a <b> & c"}`, "{\"text\":\"x\u2028y\"}", `{"text":"\u003c"}`, `null`, `{"text":"é 中文 😀"}`, `{`}
	var events []core.Event
	for i, tm := range times {
		for j, d := range datas {
			events = append(events, core.Event{TaskID: "task-1", Seq: uint64(i*100 + j), Time: tm, Type: core.EventAgentMessage, Data: json.RawMessage(d)})
		}
	}
	events = append(events,
		core.Event{TaskID: "a\"b<c>", Seq: 1, Time: times[0], Type: "t"},
		core.Event{TaskID: "t", Seq: 1, Time: times[0], Type: "tÿpe\t"},
		core.Event{TaskID: "t", Seq: 18446744073709551615, Time: times[0], Type: "state_changed", Data: json.RawMessage(`{"to":"running"}`)})
	// A streamed event's frame, and the ready frame, are written by hand.
	for _, f := range []*subscribeFrame{{Ready: true}, {Events: events[1:2]}} {
		if _, ok := appendFrame(nil, f); !ok {
			t.Errorf("frame %+v left to Marshal", f)
		}
	}
	frames := []*subscribeFrame{{Ready: true}, {}, {Events: []core.Event{}}, {Ready: true, Events: events[:1]}, {Events: events[:2]}}
	for i := range events {
		frames = append(frames, &subscribeFrame{Events: events[i : i+1]})
	}
	frames = append(frames, &subscribeFrame{Events: events})
	for _, f := range frames {
		want, wantErr := jsonCodec{}.Marshal(f)
		prefix := []byte("kept")
		got, err := jsonCodec{}.MarshalAppend(bytes.Clone(prefix), f)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("frame %+v: error %v, Marshal's %v", f, err, wantErr)
		}
		if err == nil && !bytes.Equal(got, append(prefix, want...)) {
			t.Errorf("frame %+v:\n got %s\nwant kept%s", f, got, want)
		}
	}
}

// MarshalAppend writes the other messages as Marshal does.
func TestMarshalAppendOtherMessages(t *testing.T) {
	for _, v := range []any{&helloRequest{Protocol: 1, Role: RoleDashboard}, &listRequest{Filter: core.ListFilter{All: true}},
		&subscribeRequest{Options: core.SubscribeOptions{TaskID: "t", FromSeq: 3}}} {
		want, err := jsonCodec{}.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := jsonCodec{}.MarshalAppend(nil, v)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%T: %s %v, Marshal wrote %s", v, got, err, want)
		}
	}
}

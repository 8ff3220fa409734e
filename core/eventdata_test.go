package core

import (
	"bufio"
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// Every Event* constant of the package has a typed form, so that a new event type cannot be
// journaled without front ends being able to decode it, and no two share one, so that the Go
// type of a decoded event says which event it is.
func TestEveryEventTypeDecodes(t *testing.T) {
	owner := map[reflect.Type]string{} // data type → the event type that carries it
	for typ, name := range eventTypes(t) {
		if typ == EventWorkerUnknown {
			continue
		}
		v := newEventData(typ)
		if v == nil {
			t.Errorf("%s (%q) has no typed form in newEventData", name, typ)
			continue
		}
		gt := reflect.TypeOf(v)
		if other, ok := owner[gt]; ok {
			t.Errorf("%s (%q) and %q share the data type %s", name, typ, other, gt)
		}
		owner[gt] = typ
	}
}

// eventTypes finds every Event* string constant of the package: event type → constant name.
func eventTypes(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	found := map[string]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok {
				return true
			}
			for i, name := range vs.Names {
				if !strings.HasPrefix(name.Name, "Event") || i >= len(vs.Values) {
					continue
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					continue
				}
				typ, _ := strconv.Unquote(lit.Value)
				found[typ] = name.Name
			}
			return true
		})
	}
	if len(found) < 20 {
		t.Fatalf("found only %d event constants: the scan is broken", len(found))
	}
	return found
}

func TestEventDecode(t *testing.T) {
	ev := Event{TaskID: "t", Seq: 3, Type: EventStateChanged, Data: json.RawMessage(`{"from":"running","to":"review_required","phase":"review"}`)}
	v, err := ev.Decode()
	if err != nil {
		t.Fatal(err)
	}
	d, ok := v.(*StateChangedData)
	if !ok || d.To != StateReviewRequired || d.Phase != "review" {
		t.Fatalf("decoded %#v", v)
	}
	if v, err := (Event{Type: EventWorkerUnknown, Data: json.RawMessage(`{"x":1}`)}).Decode(); v != nil || err != nil {
		t.Fatalf("worker_unknown decoded to %#v, %v", v, err)
	}
	if _, err := (Event{Type: EventUsage, Data: json.RawMessage(`{"promptTokens":"many"}`)}).Decode(); err == nil {
		t.Fatal("malformed data decoded")
	}
}

func TestDataOf(t *testing.T) {
	ev := Event{Type: EventInteractionResolved, Data: json.RawMessage(`{"id":"permission-1","status":"resolved"}`)}
	if ia, ok := DataOf[InteractionResolvedData](ev); !ok || ia.ID != "permission-1" || ia.Status != InteractionResolved {
		t.Fatalf("DataOf[InteractionResolvedData] = %#v, %v", ia, ok)
	}
	if d, ok := DataOf[InteractionWaitingData](ev); ok {
		t.Fatalf("a resolved interaction decoded as a waiting one: %#v", d)
	}
	if d, ok := DataOf[StateChangedData](ev); ok {
		t.Fatalf("an interaction decoded as state_changed data: %#v", d)
	}
	if _, ok := DataOf[Usage](Event{Type: EventUsage, Data: json.RawMessage(`{"promptTokens":"many"}`)}); ok {
		t.Fatal("malformed usage decoded")
	}
	if _, ok := DataOf[SteeredData](Event{Type: EventWorkerUnknown, Data: json.RawMessage(`{"text":"x"}`)}); ok {
		t.Fatal("worker_unknown decoded as text")
	}
	steered := Event{Type: EventSteered, Data: json.RawMessage(`{"text":"look again"}`)}
	if d, ok := DataOf[SteeredData](steered); !ok || d.Text != "look again" {
		t.Fatalf("DataOf[SteeredData] = %#v, %v", d, ok)
	}
	for name, ok := range map[string]bool{
		"AgentMessageData": func() bool { _, ok := DataOf[AgentMessageData](steered); return ok }(),
		"ErrorData":        func() bool { _, ok := DataOf[ErrorData](steered); return ok }(),
		"TextData":         func() bool { _, ok := DataOf[TextData](steered); return ok }(),
	} {
		if ok {
			t.Errorf("a steered event decoded as %s", name)
		}
	}
}

// Journals written before each event type had a data type of its own still decode, and their
// data encodes again byte for byte: testdata/events.jsonl was written by that earlier code
// (every event type twice, with no field set and with every field set), and each event's data is
// decoded into the type its Type now carries and encoded again.
func TestStoredEventsEncodeAsTheyWereStored(t *testing.T) {
	f, err := os.Open("testdata/events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var ev Event
		if err := json.Unmarshal(line, &ev); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		seen[ev.Type]++
		v, err := ev.Decode()
		if err != nil || v == nil {
			t.Errorf("%s (seq %d) does not decode: %v, %v", ev.Type, ev.Seq, v, err)
			continue
		}
		if want := reflect.TypeOf(newEventData(ev.Type)); reflect.TypeOf(v) != want {
			t.Errorf("%s decoded to %T, want %s", ev.Type, v, want)
		}
		again, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, ev.Data) {
			t.Errorf("%s (seq %d) changed:\nstored  %s\nencoded %s", ev.Type, ev.Seq, ev.Data, again)
		}
		whole, err := json.Marshal(Event{TaskID: ev.TaskID, Seq: ev.Seq, Time: ev.Time, Type: ev.Type, Data: again})
		if err != nil || !bytes.Equal(whole, line) {
			t.Errorf("%s (seq %d) as an event changed:\nstored  %s\nencoded %s (%v)", ev.Type, ev.Seq, line, whole, err)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	// Every type the table knows is in the file, so that a new one is added to it too.
	for typ := range eventTypes(t) {
		if typ != EventWorkerUnknown && seen[typ] != 2 {
			t.Errorf("testdata/events.jsonl holds %d events of type %s, want 2 (no field set, every field set)", seen[typ], typ)
		}
	}
}

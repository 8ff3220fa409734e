package core

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Every Event* constant of the package has a typed form, so that a new event type cannot be
// journaled without front ends being able to decode it.
func TestEveryEventTypeDecodes(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	found := 0
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
				found++
				if typ == EventWorkerUnknown {
					continue
				}
				if newEventData(typ) == nil {
					t.Errorf("%s (%q) has no typed form in newEventData", name.Name, typ)
				}
			}
			return true
		})
	}
	if found < 20 {
		t.Fatalf("found only %d event constants: the scan is broken", found)
	}
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
	if ia, ok := DataOf[Interaction](ev); !ok || ia.ID != "permission-1" || ia.Status != InteractionResolved {
		t.Fatalf("DataOf[Interaction] = %#v, %v", ia, ok)
	}
	if d, ok := DataOf[StateChangedData](ev); ok {
		t.Fatalf("an interaction decoded as state_changed data: %#v", d)
	}
	if _, ok := DataOf[Usage](Event{Type: EventUsage, Data: json.RawMessage(`{"promptTokens":"many"}`)}); ok {
		t.Fatal("malformed usage decoded")
	}
	if _, ok := DataOf[TextData](Event{Type: EventWorkerUnknown, Data: json.RawMessage(`{"text":"x"}`)}); ok {
		t.Fatal("worker_unknown decoded as text")
	}
	if d, ok := DataOf[TextData](Event{Type: EventSteered, Data: json.RawMessage(`{"text":"look again"}`)}); !ok || d.Text != "look again" {
		t.Fatalf("DataOf[TextData] = %#v, %v", d, ok)
	}
}

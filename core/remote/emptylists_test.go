package remote

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"reasonixctl/core"
)

// requestTypes are the messages a client sends on the socket: every one must arrive as it was
// sent, an empty list as empty and a missing one as missing.
var requestTypes = []any{
	helloRequest{}, superviseRequest{}, listRequest{}, getRequest{}, subscribeRequest{},
	delegateRequest{}, controlRequest{}, core.InspectRequest{}, journalRequest{}, logRequest{},
	taskRequest{}, fileRequest{}, core.CommentRequest{}, core.DraftRequest{}, archiveRequest{},
	pruneRequest{}, questionsRequest{}, answerRequest{}, grantsRequest{}, revokeRequest{},
}

// fill sets every list (slice or map) reachable in v through JSON-visible fields: left nil
// (shape "missing"), empty ("empty"), or holding one element filled as "empty" when it holds
// structs ("nested"). A json.RawMessage gets a valid value, since nil does not round-trip.
func fill(v reflect.Value, shape string, depth int) {
	if depth > 6 {
		return
	}
	if v.Type() == reflect.TypeFor[json.RawMessage]() {
		v.Set(reflect.ValueOf(json.RawMessage(`{}`)))
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if shape != "missing" && v.Type().Elem().Kind() == reflect.Struct && !ownJSON(v.Type().Elem()) {
			v.Set(reflect.New(v.Type().Elem()))
			fill(v.Elem(), shape, depth+1)
		}
	case reflect.Struct:
		if ownJSON(v.Type()) {
			return
		}
		for _, f := range jsonFields(v.Type()) {
			fv, ok := fieldOf(v, f)
			if ok && fv.CanSet() {
				fill(fv, shape, depth+1)
			}
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 || shape == "missing" {
			return
		}
		s := reflect.MakeSlice(v.Type(), 0, 1)
		if shape == "nested" && v.Type().Elem().Kind() == reflect.Struct {
			e := reflect.New(v.Type().Elem()).Elem()
			fill(e, "empty", depth+1)
			s = reflect.Append(s, e)
		}
		v.Set(s)
	case reflect.Map:
		if shape != "missing" {
			v.Set(reflect.MakeMap(v.Type()))
		}
	}
}

// Every request type crosses the codec unchanged: with all its lists empty, with lists of
// structs whose own lists are empty, and with every list missing. Before, an empty list under
// omitempty arrived missing.
func TestEveryRequestKeepsItsEmptyLists(t *testing.T) {
	for _, r := range requestTypes {
		typ := reflect.TypeOf(r)
		for _, shape := range []string{"empty", "nested", "missing"} {
			sent := reflect.New(typ)
			fill(sent.Elem(), shape, 0)
			b, err := jsonCodec{}.Marshal(sent.Interface())
			if err != nil {
				t.Fatalf("%s %s: %v", typ, shape, err)
			}
			got := reflect.New(typ)
			if err := (jsonCodec{}).Unmarshal(b, got.Interface()); err != nil {
				t.Fatalf("%s %s: %v", typ, shape, err)
			}
			if !reflect.DeepEqual(sent.Interface(), got.Interface()) {
				t.Errorf("%s (%s lists) changed on the wire:\nsent %+v\ngot  %+v\njson %s", typ, shape, sent.Elem(), got.Elem(), b)
			}
		}
	}
	// A command is an interface in its message, which fill leaves nil: each type is sent in it.
	for _, zero := range core.Commands() {
		typ := reflect.TypeOf(zero)
		for _, shape := range []string{"empty", "nested", "missing"} {
			cmd := reflect.New(typ).Elem()
			fill(cmd, shape, 0)
			sent := newControlRequest(cmd.Interface().(core.Command))
			b, err := jsonCodec{}.Marshal(sent)
			if err != nil {
				t.Fatalf("%s %s: %v", typ, shape, err)
			}
			var got controlRequest
			if err := (jsonCodec{}).Unmarshal(b, &got); err != nil {
				t.Fatalf("%s %s: %v", typ, shape, err)
			}
			if !reflect.DeepEqual(*sent, got) {
				t.Errorf("%s (%s lists) changed on the wire:\nsent %+v\ngot  %+v\njson %s", typ, shape, *sent, got, b)
			}
		}
	}
	// The JSON is encoding/json's but for the lists it put back.
	b, _ := jsonCodec{}.Marshal(newControlRequest(core.Finalize{TaskID: "t", ApprovedReviewCriteria: []string{}}))
	if !strings.Contains(string(b), `"approved_review_criteria":[]`) || strings.Contains(string(b), "acknowledged_risks") {
		t.Fatalf("wire form: %s", b)
	}
}

// A message without empty lists is written by encoding/json alone, byte for byte.
func TestMessagesWithoutEmptyListsAreUnchanged(t *testing.T) {
	for _, v := range []any{
		&core.ReviewBundle{Summary: "s", ChangedFiles: []string{"a"}},
		newControlRequest(core.Steer{TaskID: "t"}),
		&subscribeFrame{Events: []core.Event{{TaskID: "t", Data: json.RawMessage(`{"a":[]}`)}}},
	} {
		want, _ := json.Marshal(v)
		got, err := jsonCodec{}.Marshal(v)
		if err != nil || string(got) != string(want) {
			t.Fatalf("%T: %s, want %s (%v)", v, got, want, err)
		}
	}
}

// Finalize through the socket with approved_review_criteria: [] (the contract has no review
// criterion) commits, as it does in process; without the field it is refused on both alike.
// Before, the empty list was dropped on the way and the owner answered "required".
func TestAttachedFinalizeApprovesNoCriteria(t *testing.T) {
	o := newOwner(t, turn(writeResult()))
	c := o.dial(t, RoleMCP)
	req := o.request("none")
	req.Contract = json.RawMessage(strings.Replace(happyContract, `,
    {"id": "looks-right", "requirement": "the change looks right", "evidence": "review"}`, "", 1))
	res, err := c.Delegate(ctxT(t, time.Minute), req)
	if err != nil || res.State != core.StateReviewRequired || res.ReviewBundle == nil || len(res.RequiredReviewCriteria) != 0 {
		t.Fatalf("delegate: %v %+v", err, res.TaskView)
	}
	rev := res.ReviewRevision
	finalize := core.Finalize{TaskID: "none", ReviewSummary: "nothing to judge by eye",
		ExpectedReviewRevision: &rev, ExpectedReviewTreeHash: res.ReviewTreeHash, Authority: core.Authority{Cwd: o.repo, Writable: true}}

	_, inProcess := o.e.Control(ctxT(t, time.Minute), finalize)
	_, attached := c.Control(ctxT(t, time.Minute), finalize)
	a, b := mustCode(t, inProcess, core.CodeInvalidRequest), mustCode(t, attached, core.CodeInvalidRequest)
	aj, _ := json.Marshal(a.Details)
	bj, _ := json.Marshal(b.Details)
	if a.Message != b.Message || string(aj) != string(bj) || !strings.Contains(string(aj), "approved_review_criteria") {
		t.Fatalf("without the field: in process %q %s, attached %q %s", a.Message, aj, b.Message, bj)
	}

	finalize.ApprovedReviewCriteria = []string{}
	v, err := c.Control(ctxT(t, time.Minute), finalize)
	if err != nil || v.State != core.StateCompleted {
		t.Fatalf("attached finalize with approved_review_criteria []: %v %+v", err, v)
	}
}

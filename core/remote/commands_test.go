package remote

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"reasonixctl/core"
	"reasonixctl/core/engine"
)

// commandsSeen serves a real engine but keeps each command Control receives instead of carrying
// it out, so that a test sees what crossed the socket.
type commandsSeen struct {
	*engine.Engine
	mu  sync.Mutex
	got []core.Command
}

func (c *commandsSeen) Control(_ context.Context, cmd core.Command) (core.TaskView, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.got = append(c.got, cmd)
	return core.TaskView{TaskID: cmd.Task()}, nil
}

// setAll gives every exported field reachable from v a value that is not its zero value, each
// string its own (so that two fields swapped on the way would show).
func setAll(t *testing.T, v reflect.Value, path string, n *int) {
	*n++
	switch v.Kind() {
	case reflect.String:
		v.SetString(strings.ToLower(path) + "-" + string(rune('a'+*n%26)))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		setAll(t, p.Elem(), path, n)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			setAll(t, s.Index(i), path, n)
		}
		v.Set(s)
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() {
				setAll(t, v.Field(i), path+"."+f.Name, n)
			}
		}
	default:
		t.Fatalf("%s: setAll does not know %s", path, v.Kind())
	}
}

// Every command type crosses the owner's socket as the same Go type with every field as it was
// sent, those outside reasonix_control's JSON included (a finalize's Authority; a respond's
// AnsweredBy, Outcome, Client and Grant), and with its empty lists empty.
func TestEveryCommandCrossesTheSocketWhole(t *testing.T) {
	dir := shortDir(t)
	e, err := engine.Open(engine.Config{StateDir: dir, Mode: "mcp"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	seen := &commandsSeen{Engine: e}
	srv, err := serve(context.Background(), seen, dir, Info{Mode: "mcp", Version: "test", StartedAt: time.Now().UTC()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	c, err := Dial(ctxT(t, 10*time.Second), dir, RoleDashboard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })

	var sent []core.Command
	for _, zero := range core.Commands() {
		full := reflect.New(reflect.TypeOf(zero)).Elem()
		n := 0
		setAll(t, full, full.Type().Name(), &n)
		empty := reflect.New(reflect.TypeOf(zero)).Elem()
		for i := range empty.NumField() {
			if f := empty.Field(i); f.Kind() == reflect.Slice {
				f.Set(reflect.MakeSlice(f.Type(), 0, 0))
			}
		}
		sent = append(sent, full.Interface().(core.Command), empty.Interface().(core.Command), zero)
	}
	for _, cmd := range sent {
		if v, err := c.Control(ctxT(t, 10*time.Second), cmd); err != nil || v.TaskID != cmd.Task() {
			t.Fatalf("%#v: %v, %+v", cmd, err, v)
		}
	}
	seen.mu.Lock()
	defer seen.mu.Unlock()
	if len(seen.got) != len(sent) {
		t.Fatalf("the owner received %d commands, want %d", len(seen.got), len(sent))
	}
	for i, want := range sent {
		if got := seen.got[i]; !reflect.DeepEqual(got, want) {
			t.Errorf("%T changed on the socket:\nsent %#v\ngot  %#v", want, want, got)
		}
	}
}

// A command the engine would refuse in process (none at all) is refused alike through the
// socket, rather than failing to cross it.
func TestNoCommandIsRefusedLikeInProcess(t *testing.T) {
	o := newOwner(t, nil)
	c := o.dial(t, RoleCLI)
	_, inProcess := o.e.Control(ctxT(t, 10*time.Second), nil)
	_, attached := c.Control(ctxT(t, 10*time.Second), nil)
	a, b := mustCode(t, inProcess, core.CodeInvalidRequest), mustCode(t, attached, core.CodeInvalidRequest)
	aj, _ := json.Marshal(a.Details)
	bj, _ := json.Marshal(b.Details)
	if a.Message != b.Message || string(aj) != string(bj) {
		t.Fatalf("in process %q %s, attached %q %s", a.Message, aj, b.Message, bj)
	}
}

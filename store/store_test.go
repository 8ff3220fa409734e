package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	badger "github.com/dgraph-io/badger/v4"
)

func openTest(t testing.TB, mutate ...func(*Options)) *Store {
	t.Helper()
	opts := Options{Dir: t.TempDir(), Mode: "test"}
	for _, m := range mutate {
		m(&opts)
	}
	s, err := Open(opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func unsynced(o *Options) { o.noSync = true }

type counter struct {
	N uint64 `json:"n"`
}

// increment is the update used by the concurrency and crash tests: the record always equals
// the data of the task's last event.
func increment(cur []byte, exists bool) ([]byte, []NewEvent, error) {
	var c counter
	if exists {
		if err := json.Unmarshal(cur, &c); err != nil {
			return nil, nil, err
		}
	}
	c.N++
	b, _ := json.Marshal(c)
	return b, []NewEvent{{Type: "inc", Data: b}}, nil
}

// checkCounterTask asserts the journal is exactly 1..last, each event carrying its own seq,
// and the record equals the last event's state.
func checkCounterTask(t testing.TB, s *Store, id string) uint64 {
	t.Helper()
	evs, err := s.Journal(id, 1, 1<<30)
	if err != nil {
		t.Fatalf("Journal: %v", err)
	}
	for i, ev := range evs {
		var c counter
		if err := json.Unmarshal(ev.Data, &c); err != nil {
			t.Fatalf("event %d data %q: %v", ev.Seq, ev.Data, err)
		}
		if ev.Seq != uint64(i+1) || c.N != ev.Seq || ev.TaskID != id || ev.Type != "inc" {
			t.Fatalf("journal position %d holds seq %d with counter %d (task %q type %q); want contiguous 1..n", i, ev.Seq, c.N, ev.TaskID, ev.Type)
		}
	}
	last := uint64(len(evs))
	rec, err := s.Get(id)
	if errors.Is(err, ErrNotFound) && last == 0 {
		return 0
	}
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	var c counter
	if err := json.Unmarshal(rec, &c); err != nil || c.N != last {
		t.Fatalf("record %s (err %v) does not match the journal's last seq %d", rec, err, last)
	}
	return last
}

func TestConcurrentUpdatesOfOneTaskLoseNothing(t *testing.T) {
	s := openTest(t, unsynced)
	const writers, each = 8, 50
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for range writers {
		wg.Go(func() {
			for range each {
				if _, err := s.Update("t1", increment); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got := checkCounterTask(t, s, "t1"); got != writers*each {
		t.Fatalf("counter = %d, want %d", got, writers*each)
	}
}

func TestUpdateReturnsCommittedEventsAndSurvivesReopen(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(Options{Dir: dir, Mode: "test"})
	if err != nil {
		t.Fatal(err)
	}
	evs, err := s.Update("t1", func(cur []byte, exists bool) ([]byte, []NewEvent, error) {
		if cur != nil || exists {
			t.Errorf("new task: cur=%q exists=%v", cur, exists)
		}
		return []byte(`{"state":"provisioning"}`), []NewEvent{{Type: "created"}, {Type: "state", Data: json.RawMessage(`"provisioning"`)}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || evs[0].Seq != 1 || evs[1].Seq != 2 || evs[1].Type != "state" || evs[0].Time.IsZero() {
		t.Fatalf("events = %+v", evs)
	}
	buf := []byte(`{ "text": "spaced" }`)
	evs, err = s.Append("t1", NewEvent{Type: "note", Data: buf})
	if err != nil || len(evs) != 1 || evs[0].Seq != 3 || string(evs[0].Data) != `{"text":"spaced"}` {
		t.Fatalf("Append = %+v, %v", evs, err)
	}
	copy(buf, "xxxxxx")
	if string(evs[0].Data) != `{"text":"spaced"}` {
		t.Fatalf("returned event aliases the caller's buffer: %s", evs[0].Data)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := s.Get("t1"); !errors.Is(err, ErrClosed) {
		t.Fatalf("Get after Close: %v, want ErrClosed", err)
	}

	s, err = Open(Options{Dir: dir, Mode: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec, err := s.Get("t1")
	if err != nil || string(rec) != `{"state":"provisioning"}` {
		t.Fatalf("Get = %s, %v", rec, err)
	}
	if evs, err := s.Append("t1", NewEvent{Type: "after-reopen"}); err != nil || evs[0].Seq != 4 {
		t.Fatalf("Append after reopen = %+v, %v", evs, err)
	}
	got, err := s.Journal("t1", 2, 2)
	if err != nil || len(got) != 2 || got[0].Seq != 2 || got[1].Seq != 3 || string(got[0].Data) != `"provisioning"` || string(got[1].Data) != `{"text":"spaced"}` {
		t.Fatalf("Journal(2, 2) = %+v, %v", got, err)
	}
	if last, err := s.LastSeq("t1"); err != nil || last != 4 {
		t.Fatalf("LastSeq = %d, %v", last, err)
	}
}

func TestNothingIsWrittenWhenUpdateFails(t *testing.T) {
	s := openTest(t, unsynced)
	if _, err := s.Update("t1", increment); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	cases := map[string]func([]byte, bool) ([]byte, []NewEvent, error){
		"fn error": func([]byte, bool) ([]byte, []NewEvent, error) {
			return []byte(`{"n":9}`), []NewEvent{{Type: "x"}}, boom
		},
		"invalid record": func([]byte, bool) ([]byte, []NewEvent, error) { return []byte(`{`), []NewEvent{{Type: "x"}}, nil },
		"empty type":     func([]byte, bool) ([]byte, []NewEvent, error) { return []byte(`{"n":9}`), []NewEvent{{Type: ""}}, nil },
		"invalid data": func([]byte, bool) ([]byte, []NewEvent, error) {
			return nil, []NewEvent{{Type: "x"}, {Type: "y", Data: []byte("nope")}}, nil
		},
	}
	for name, fn := range cases {
		_, err := s.Update("t1", fn)
		if err == nil || (name != "fn error" && !errors.Is(err, ErrInvalidArgument)) || (name == "fn error" && !errors.Is(err, boom)) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	if got := checkCounterTask(t, s, "t1"); got != 1 {
		t.Fatalf("after failed updates the task has %d events, want 1", got)
	}
	if evs, err := s.Update("t1", func([]byte, bool) ([]byte, []NewEvent, error) { return nil, nil, nil }); err != nil || evs != nil {
		t.Fatalf("no-op update = %v, %v", evs, err)
	}
}

func TestBadArgumentsAreRejected(t *testing.T) {
	s := openTest(t, unsynced)
	for _, id := range []string{"", "a/b", "/", "ab/", strings.Repeat("x", MaxIDLen+1)} {
		if _, err := s.Get(id); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("Get(%q) = %v, want ErrInvalidArgument", id, err)
		}
		if _, err := s.Append(id, NewEvent{Type: "x"}); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("Append(%q) = %v, want ErrInvalidArgument", id, err)
		}
	}
	if _, err := s.Journal("t1", 1, 0); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("Journal limit 0: %v", err)
	}
	if _, err := s.Subscribe(context.Background(), "", 5); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("Subscribe all from 5: %v", err)
	}
	// What a task id may be is the caller's rule: any id the key layout holds is stored, up to
	// the longest; one byte more is refused above.
	for _, id := range []string{"a b", "tab\t", "é", strings.Repeat("x", MaxIDLen)} {
		if _, err := s.Append(id, NewEvent{Type: "x"}); err != nil {
			t.Errorf("Append(%q): %v", id, err)
		}
		if evs, err := s.Journal(id, 1, 10); err != nil || len(evs) != 1 {
			t.Errorf("Journal(%q) = %v, %v", id, evs, err)
		}
	}
	if _, err := s.Get("missing"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get(missing) = %v, want ErrNotFound", err)
	}
	for _, o := range []Options{{Mode: "x"}, {Dir: t.TempDir()}, {Dir: t.TempDir(), Mode: "a\nb"}, {Dir: t.TempDir(), Mode: "x", SubscriberBuffer: -1}} {
		if _, err := Open(o); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("Open(%+v) = %v, want ErrInvalidArgument", o, err)
		}
	}
}

func TestUnknownSchemaVersionFailsClosed(t *testing.T) {
	s := openTest(t, unsynced)
	for _, version := range []int{RecordSchemaVersion + 1, 0} {
		id := fmt.Sprintf("v%d", version)
		raw := fmt.Appendf(nil, `{"v":%d,"record":{"n":7}}`, version)
		if err := s.db.Update(func(txn *badger.Txn) error { return txn.Set(taskKey(id), raw) }); err != nil {
			t.Fatal(err)
		}
		var sv *SchemaVersionError
		if _, err := s.Get(id); !errors.As(err, &sv) || sv.Version != version || sv.TaskID != id {
			t.Fatalf("Get = %v, want *SchemaVersionError for version %d", err, version)
		}
		called := false
		_, err := s.Update(id, func([]byte, bool) ([]byte, []NewEvent, error) {
			called = true
			return []byte(`{"n":8}`), []NewEvent{{Type: "inc"}}, nil
		})
		if !errors.As(err, &sv) || called {
			t.Fatalf("Update = %v (fn called: %v), want *SchemaVersionError before fn runs", err, called)
		}
		if _, err := s.Append(id, NewEvent{Type: "x"}); !errors.As(err, &sv) {
			t.Fatalf("Append = %v, want *SchemaVersionError", err)
		}
		if _, err := s.List(); !errors.As(err, &sv) {
			t.Fatalf("List = %v, want *SchemaVersionError", err)
		}
		var stored []byte
		s.db.View(func(txn *badger.Txn) error {
			item, err := txn.Get(taskKey(id))
			if err == nil {
				stored, err = item.ValueCopy(nil)
			}
			return err
		})
		if !bytes.Equal(stored, raw) {
			t.Fatalf("record rewritten to %s", stored)
		}
		if last, err := s.LastSeq(id); err != nil || last != 0 {
			t.Fatalf("journal of refused task has %d events (%v)", last, err)
		}
		s.Delete(id)
	}
}

func TestListDeleteAndInterruptedDelete(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(Options{Dir: dir, Mode: "test", noSync: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"b", "a", "c"} {
		for range 3 {
			if _, err := s.Update(id, increment); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := s.Delete("b"); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete("never-existed"); err != nil {
		t.Fatalf("Delete(unknown) = %v", err)
	}
	recs, err := s.List()
	if err != nil || len(recs) != 2 || recs[0].TaskID != "a" || recs[1].TaskID != "c" || string(recs[0].Data) != `{"n":3}` {
		t.Fatalf("List = %+v, %v", recs, err)
	}
	if _, err := s.Get("b"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get(deleted) = %v", err)
	}
	if evs, _ := s.Journal("b", 1, 10); len(evs) != 0 {
		t.Fatalf("journal of deleted task: %+v", evs)
	}
	if evs, err := s.Update("b", increment); err != nil || evs[0].Seq != 1 {
		t.Fatalf("recreated task starts at %+v, %v", evs, err)
	}

	// A delete interrupted after its first transaction leaves the marker and the journal;
	// the next Open removes the journal.
	err = s.db.Update(func(txn *badger.Txn) error {
		if err := txn.Set(deletingKey("c"), nil); err != nil {
			return err
		}
		return txn.Delete(taskKey("c"))
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = Open(Options{Dir: dir, Mode: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if last, err := s.LastSeq("c"); err != nil || last != 0 {
		t.Fatalf("interrupted delete left %d events (%v)", last, err)
	}
	if last, _ := s.LastSeq("a"); last != 3 {
		t.Fatalf("unrelated task lost events: last seq %d", last)
	}
}

func TestCursorKeyIsCreatedOnceAndKept(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(Options{Dir: dir, Mode: "test"})
	if err != nil {
		t.Fatal(err)
	}
	k1, err := s.CursorKey()
	if err != nil || len(k1) != 32 || bytes.Equal(k1, make([]byte, 32)) {
		t.Fatalf("CursorKey = %x, %v", k1, err)
	}
	if k2, _ := s.CursorKey(); !bytes.Equal(k1, k2) {
		t.Fatal("CursorKey changed within one Open")
	}
	s.Close()
	s, err = Open(Options{Dir: dir, Mode: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if k3, err := s.CursorKey(); err != nil || !bytes.Equal(k1, k3) {
		t.Fatalf("CursorKey after reopen = %x, %v; want %x", k3, err, k1)
	}
}

func TestSecondOpenInProcessIsOwnedError(t *testing.T) {
	s := openTest(t, func(o *Options) { o.Mode = "tui" })
	_, err := Open(Options{Dir: s.opts.Dir, Mode: "mcp"})
	var owned *OwnedError
	if !errors.As(err, &owned) || owned.Owner == nil || owned.Owner.PID != os.Getpid() || owned.Owner.Mode != "tui" {
		t.Fatalf("second Open = %v, want *OwnedError naming this pid and mode tui", err)
	}
	want := fmt.Sprintf("state directory %s is in use by reasonixctl pid %d (mode tui) since ", s.opts.Dir, os.Getpid())
	if !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("message %q does not start with %q", err, want)
	}
	// Without a readable owner.json the lock still decides, and the message says so.
	os.Remove(filepath.Join(s.opts.Dir, ownerInfoName))
	_, err = Open(Options{Dir: s.opts.Dir, Mode: "mcp"})
	if !errors.As(err, &owned) || owned.Owner != nil || !strings.Contains(err.Error(), "owner unknown") {
		t.Fatalf("Open with owner.json gone = %v", err)
	}
}

func TestStateDirectoryPermissions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	s, err := Open(Options{Dir: dir, Mode: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for name, want := range map[string]os.FileMode{"": 0o700 | os.ModeDir, "badger": 0o700 | os.ModeDir, ownerLockName: 0o600, ownerInfoName: 0o600} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil || fi.Mode() != want {
			t.Errorf("%s: mode %v (%v), want %v", name, fi.Mode(), err, want)
		}
	}
	s.Close()
	if _, err := os.Stat(filepath.Join(dir, ownerInfoName)); !os.IsNotExist(err) {
		t.Errorf("owner.json left after Close: %v", err)
	}
}

type recordingHandler struct {
	mu   sync.Mutex
	msgs []string
}

func (h *recordingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *recordingHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *recordingHandler) WithGroup(string) slog.Handler            { return h }
func (h *recordingHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "component" && a.Value.String() == "badger" {
			h.msgs = append(h.msgs, r.Message)
		}
		return true
	})
	return nil
}

func TestBadgerLogsGoToTheGivenLogger(t *testing.T) {
	h := &recordingHandler{}
	s := openTest(t, func(o *Options) { o.Logger = slog.New(h) })
	s.Close()
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.msgs) == 0 {
		t.Fatal("no badger message reached the logger")
	}
	for _, m := range h.msgs {
		if strings.HasSuffix(m, "\n") {
			t.Errorf("message keeps its newline: %q", m)
		}
	}
}

// A value log or memtable log a crash left empty (created, header not yet written) neither stops
// the store from opening nor loses what was committed.
func TestOpenAfterACrashLeftAnEmptyLog(t *testing.T) {
	for _, name := range []string{"000099.vlog", "00099.mem"} {
		t.Run(name, func(t *testing.T) { openWithEmptyLog(t, name) })
	}
}

func openWithEmptyLog(t *testing.T, name string) {
	dir := t.TempDir()
	s, err := Open(Options{Dir: dir, Mode: "test"})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := s.Update("t1", increment); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "badger", name)
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err = Open(Options{Dir: dir, Mode: "test"})
	if err != nil {
		t.Fatalf("Open with an empty %s: %v", name, err)
	}
	defer s.Close()
	if n := checkCounterTask(t, s, "t1"); n != 3 {
		t.Fatalf("%d events after reopening, want 3", n)
	}
}

func TestDecodeRecordReadsBothEnvelopeForms(t *testing.T) {
	rec := `{"task_id":"a","note":"\",\"record\":{}"}`
	written, _ := json.Marshal(recordEnvelope{V: RecordSchemaVersion, UpdatedAt: time.Now(), Record: json.RawMessage(rec)})
	for name, env := range map[string]string{
		"as Update writes it": string(written),
		"reordered":           `{"record":` + rec + `,"v":1,"updated_at":"2026-01-01T00:00:00Z"}`,
		"spaced":              `{ "v": 1, "updated_at": "2026-01-01T00:00:00Z", "record": ` + rec + ` }`,
	} {
		got, err := decodeRecord("a", []byte(env))
		if err != nil || string(got) != rec {
			t.Errorf("%s: %q, %v", name, got, err)
		}
	}
	var sv *SchemaVersionError
	if _, err := decodeRecord("a", []byte(`{"v":2,"updated_at":"2026-01-01T00:00:00Z","record":{}}`)); !errors.As(err, &sv) {
		t.Errorf("version 2: %v", err)
	}
	if _, err := decodeRecord("a", []byte(`{"v":1,"updated_at":"x","record":`)); err == nil {
		t.Error("a truncated envelope was accepted")
	}
}

// After a task with a large journal is deleted, Compact gives its space back and keeps the
// other task whole.
func TestCompactDropsDeletedJournals(t *testing.T) {
	s := openTest(t)
	text := json.RawMessage(`{"text":"` + strings.Repeat("x", 400) + `"}`)
	batch := make([]NewEvent, 500)
	for i := range batch {
		batch[i] = NewEvent{Type: "agent_message", Data: text}
	}
	for _, id := range []string{"big", "kept"} {
		if _, err := s.Update(id, func([]byte, bool) ([]byte, []NewEvent, error) { return []byte(`{}`), nil, nil }); err != nil {
			t.Fatal(err)
		}
	}
	for range 40 {
		if _, err := s.Append("big", batch...); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Append("kept", batch[:10]...); err != nil {
		t.Fatal(err)
	}
	if err := s.Compact(); err != nil {
		t.Fatal(err)
	}
	lsmBefore, _ := s.db.Size()
	if err := s.Delete("big"); err != nil {
		t.Fatal(err)
	}
	if err := s.Compact(); err != nil {
		t.Fatal(err)
	}
	lsmAfter, _ := s.db.Size()
	if lsmAfter*4 > lsmBefore {
		t.Fatalf("tables %d bytes before the delete, %d after compacting", lsmBefore, lsmAfter)
	}
	if evs, err := s.Journal("kept", 1, 100); err != nil || len(evs) != 10 {
		t.Fatalf("kept: %d events, %v", len(evs), err)
	}
}

// Issue 30: with its state directory deleted, badger's close would retry writing its in-memory
// table for ever. Close returns at once with ErrDirGone instead, and drops the lock.
func TestCloseReturnsWhenTheDirectoryWasDeleted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	s, err := Open(Options{Dir: dir, Mode: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update("t1", func([]byte, bool) ([]byte, []NewEvent, error) {
		return []byte(`{"state":"running"}`), []NewEvent{{Type: "created"}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case err := <-closed:
		if !errors.Is(err, ErrDirGone) || !strings.Contains(err.Error(), dir) {
			t.Fatalf("Close = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return with the state directory deleted")
	}
	// The directory is free for the next owner.
	next, err := Open(Options{Dir: dir, Mode: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if err := next.Close(); err != nil {
		t.Fatal(err)
	}
}

// Only Update waits for the disk; UpdateUnsynced commits as it does, in the journal's order,
// and the next Update's single flush covers it.
func TestOnlyUpdateWaitsForTheDisk(t *testing.T) {
	s := openTest(t)
	if _, err := s.Update("t1", increment); err != nil {
		t.Fatal(err)
	}
	if got := s.Syncs(); got != 1 {
		t.Fatalf("syncs after one Update = %d, want 1", got)
	}
	for range 5 {
		if _, err := s.UpdateUnsynced("t1", increment); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Append("t1", NewEvent{Type: "note"}); err != nil {
		t.Fatal(err)
	}
	if got := s.Syncs(); got != 1 {
		t.Fatalf("UpdateUnsynced or Append waited for the disk: %d syncs", got)
	}
	rec, err := s.Get("t1")
	if err != nil || string(rec) != `{"n":6}` {
		t.Fatalf("record after unsynced updates = %s, %v", rec, err)
	}
	if _, err := s.Update("t1", increment); err != nil {
		t.Fatal(err)
	}
	if got := s.Syncs(); got != 2 {
		t.Fatalf("syncs = %d, want 2", got)
	}
	if evs, err := s.Journal("t1", 1, 100); err != nil || len(evs) != 8 || evs[7].Seq != 8 {
		t.Fatalf("journal = %d events, %v", len(evs), err)
	}
}

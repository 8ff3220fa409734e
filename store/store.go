package store

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	badger "github.com/dgraph-io/badger/v4"
)

// RecordSchemaVersion is the version written into every record envelope. A record carrying any
// other version is refused with *SchemaVersionError: an older binary must not rewrite a record
// it does not understand.
const RecordSchemaVersion = 1

var (
	// ErrNotFound: the task has no record.
	ErrNotFound = errors.New("store: task not found")
	// ErrClosed: the Store was closed.
	ErrClosed = errors.New("store: closed")
	// ErrInvalidArgument: a task id, event, record or option was malformed.
	ErrInvalidArgument = errors.New("store: invalid argument")
	// ErrDirGone: Close found the state directory deleted or replaced while the Store had it
	// open, so what badger held in memory could not be written, and was left.
	ErrDirGone = errors.New("store: the state directory was deleted while in use")
)

// SchemaVersionError reports a record written with a schema version this binary does not know.
type SchemaVersionError struct {
	TaskID  string
	Version int
}

func (e *SchemaVersionError) Error() string {
	return fmt.Sprintf("store: task %q record has schema version %d; this reasonixctl understands only version %d (upgrade reasonixctl)",
		e.TaskID, e.Version, RecordSchemaVersion)
}

// Key classes. Task ids never contain '/', so "ev/<id>/" is a prefix of that task's journal
// only, and the big-endian sequence makes key order equal journal order.
const (
	prefixTask     = "task/"
	prefixEvent    = "ev/"
	prefixDeleting = "del/"
	keyCursor      = "meta/cursor-key"
	maxTypeLen     = 128
	maxAttempts    = 8
)

func taskKey(id string) []byte       { return []byte(prefixTask + id) }
func journalPrefix(id string) []byte { return []byte(prefixEvent + id + "/") }
func deletingKey(id string) []byte   { return []byte(prefixDeleting + id) }

// eventKey is laid out in one allocation: a key is made for every event appended.
func eventKey(id string, seq uint64) []byte {
	k := make([]byte, 0, len(prefixEvent)+len(id)+1+8)
	k = append(append(append(k, prefixEvent...), id...), '/')
	return binary.BigEndian.AppendUint64(k, seq)
}

// MaxIDLen bounds a task id as a key: the ids are the caller's (it decides what a task id
// is), and the journal only needs keys it can lay out.
const MaxIDLen = 255

// checkID accepts the ids the key layout can hold: 1..MaxIDLen bytes without '/', the
// separator after "ev/<id>" that makes one task's journal a prefix no other task shares.
func checkID(id string) error {
	if id == "" || len(id) > MaxIDLen {
		return fmt.Errorf("%w: task id must be 1..%d bytes, got %d", ErrInvalidArgument, MaxIDLen, len(id))
	}
	if strings.IndexByte(id, '/') >= 0 {
		return fmt.Errorf("%w: task id %q contains '/'", ErrInvalidArgument, id)
	}
	return nil
}

// NewEvent is an event to append; the store assigns its sequence number and time.
type NewEvent struct {
	Type string
	Data json.RawMessage // empty or valid JSON
}

// Event is one journal entry. Seq is per task, starting at 1, without gaps.
type Event struct {
	TaskID string          `json:"task_id"`
	Seq    uint64          `json:"seq"`
	Time   time.Time       `json:"time"`
	Type   string          `json:"type"`
	Data   json.RawMessage `json:"data,omitempty"`
}

// Record is one task record as returned by List.
type Record struct {
	TaskID string
	Data   []byte
}

type recordEnvelope struct {
	V         int             `json:"v"`
	UpdatedAt time.Time       `json:"updated_at"`
	Record    json.RawMessage `json:"record"`
}

type storedEvent struct {
	Time time.Time       `json:"t"`
	Type string          `json:"type"`
	Data json.RawMessage `json:"data,omitempty"`
}

// Store is the persistent state of one state directory. All methods are safe for concurrent use.
type Store struct {
	opts   Options
	db     *badger.DB
	owner  *ownerLock
	broker *broker
	dbDir  os.FileInfo // Dir/badger as opened: Close checks it is still there

	// mu is held shared by every operation that uses badger; Close takes it exclusively once
	// to wait for those in flight, so badger is never used after it is closed.
	mu     sync.RWMutex
	closed atomic.Bool
	syncs  atomic.Uint64 // commits that waited for the disk

	tasksMu sync.Mutex
	tasks   map[string]*taskState

	cursorMu  sync.Mutex
	cursorKey []byte

	stopGC chan struct{}
	bg     sync.WaitGroup // GC loop and subscription forwarders
}

// taskState serialises writers of one task and caches its last journal sequence.
type taskState struct {
	mu      sync.Mutex
	lastSeq uint64
	known   bool
	// recordChecked: the task's record, as this Store last read or wrote it, has the schema
	// version this binary writes. Append leaves the record alone and reads it only to refuse
	// one of another version; once checked, it is not read (and copied) again for every event.
	// Every writer of the record holds mu; Delete and a conflict clear it.
	recordChecked bool
}

// Open takes ownership of opts.Dir (flock on owner.lock, then owner.json) and opens badger in
// it. If another process owns the directory the error is *OwnedError.
func Open(opts Options) (*Store, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	owner, err := lockOwner(opts.Dir, opts.Mode)
	if err != nil {
		return nil, err
	}
	dbDir := filepath.Join(opts.Dir, "badger")
	if err := os.MkdirAll(dbDir, 0o700); err != nil {
		owner.release()
		return nil, fmt.Errorf("store: create %s: %w", dbDir, err)
	}
	if err := removeEmptyLogs(dbDir); err != nil {
		owner.release()
		return nil, err
	}
	prefetchTables(dbDir)
	// Commits are synced explicitly by Update (see there), so badger itself never syncs.
	db, err := badger.Open(badgerOptions(dbDir, false, opts.Logger))
	if err != nil {
		owner.release()
		return nil, fmt.Errorf("store: open badger in %s: %w", dbDir, err)
	}
	dbInfo, err := os.Stat(dbDir)
	if err != nil {
		db.Close()
		owner.release()
		return nil, fmt.Errorf("store: %w", err)
	}
	s := &Store{
		opts:   opts,
		dbDir:  dbInfo,
		db:     db,
		owner:  owner,
		broker: newBroker(),
		tasks:  map[string]*taskState{},
		stopGC: make(chan struct{}),
	}
	if err := s.finishDeletes(); err != nil {
		db.Close()
		owner.release()
		return nil, err
	}
	s.bg.Add(1)
	go s.gcLoop()
	return s, nil
}

// removeEmptyLogs deletes value logs and memtable logs of length zero. Badger creates such a file
// and then sizes it and writes its header; a process killed in between leaves an empty file, and
// badger then refuses to open the directory ever again ("… Create a new file"). An empty file
// holds no entry, so nothing refers to it.
func removeEmptyLogs(dbDir string) error {
	vlogs, err := filepath.Glob(filepath.Join(dbDir, "*.vlog"))
	if err != nil {
		return fmt.Errorf("store: list value logs: %w", err)
	}
	mems, err := filepath.Glob(filepath.Join(dbDir, "*.mem"))
	if err != nil {
		return fmt.Errorf("store: list memtable logs: %w", err)
	}
	for _, p := range append(vlogs, mems...) {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Size() == 0 {
			if err := os.Remove(p); err != nil {
				return fmt.Errorf("store: remove empty log: %w", err)
			}
		}
	}
	return nil
}

// Close ends every subscription with ErrClosed, stops value-log GC, closes badger and releases
// the directory. Calling it again returns nil.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	// An empty critical section as a barrier: once the operations that started before the
	// flag was set have left, no new one can start.
	s.mu.Lock()
	s.mu.Unlock()
	close(s.stopGC)
	s.broker.closeAll(ErrClosed)
	s.bg.Wait()
	// Badger's close writes its in-memory table to the directory, retrying for ever when it
	// cannot: with the directory deleted it would never return. So it is not started when the
	// directory is gone, and given up on when the directory goes while it runs.
	if s.dirGone() {
		return s.abandon()
	}
	closed := make(chan error, 1)
	go func() { closed <- s.db.Close() }()
	check := time.NewTicker(dirGoneCheck)
	defer check.Stop()
	for {
		select {
		case err := <-closed:
			s.owner.release()
			if err != nil {
				return fmt.Errorf("store: close badger: %w", err)
			}
			return nil
		case <-check.C:
			if s.dirGone() {
				return s.abandon()
			}
		}
	}
}

// dirGoneCheck is how often a close that takes long checks that the directory is still there.
const dirGoneCheck = 100 * time.Millisecond

// dirGone reports whether Dir/badger was deleted or replaced since Open.
func (s *Store) dirGone() bool {
	fi, err := os.Stat(filepath.Join(s.opts.Dir, "badger"))
	return errors.Is(err, os.ErrNotExist) || (err == nil && !os.SameFile(fi, s.dbDir))
}

// abandon ends a Close whose directory is gone: badger is left as it is (its goroutines end
// with the process), the lock is dropped, and the error says what was lost.
func (s *Store) abandon() error {
	s.opts.Logger.Error("the state directory was deleted while in use: closing without saving what was held in memory", "dir", s.opts.Dir)
	s.owner.release()
	return fmt.Errorf("%w: %s (its tasks and log went with it)", ErrDirGone, s.opts.Dir)
}

// enter guards an operation against a concurrent Close; the caller must call s.mu.RUnlock.
func (s *Store) enter() error {
	s.mu.RLock()
	if s.closed.Load() {
		s.mu.RUnlock()
		return ErrClosed
	}
	return nil
}

func (s *Store) gcLoop() {
	defer s.bg.Done()
	t := time.NewTicker(s.opts.GCInterval)
	defer t.Stop()
	for {
		select {
		case <-s.stopGC:
			return
		case <-t.C:
			s.runGC()
		}
	}
}

// runGC rewrites value-log files until badger reports nothing left worth rewriting.
func (s *Store) runGC() {
	if s.enter() != nil {
		return
	}
	defer s.mu.RUnlock()
	for !s.closed.Load() {
		if err := s.db.RunValueLogGC(gcDiscardRatio); err != nil {
			if !errors.Is(err, badger.ErrNoRewrite) && !errors.Is(err, badger.ErrRejected) {
				s.opts.Logger.Warn("value log GC failed", "err", err)
			}
			return
		}
	}
}

func (s *Store) task(id string) *taskState {
	s.tasksMu.Lock()
	defer s.tasksMu.Unlock()
	t := s.tasks[id]
	if t == nil {
		t = &taskState{}
		s.tasks[id] = t
	}
	return t
}

// Get returns the task's record; errors.Is(err, ErrNotFound) if there is none.
func (s *Store) Get(taskID string) ([]byte, error) {
	if err := checkID(taskID); err != nil {
		return nil, err
	}
	if err := s.enter(); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	var rec []byte
	err := s.db.View(func(txn *badger.Txn) error {
		var exists bool
		var err error
		rec, exists, err = readRecord(txn, taskID)
		if err == nil && !exists {
			err = fmt.Errorf("%w: %q", ErrNotFound, taskID)
		}
		return err
	})
	return rec, err
}

func readRecord(txn *badger.Txn, id string) ([]byte, bool, error) {
	item, err := txn.Get(taskKey(id))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("store: read task %q: %w", id, err)
	}
	var rec []byte
	err = item.Value(func(v []byte) error {
		var err error
		rec, err = decodeRecord(id, v)
		return err
	})
	return rec, err == nil, err
}

// envelopeHead and envelopeMid frame the record in an envelope as Update writes it:
// {"v":1,"updated_at":"<time>","record":<record>}.
var (
	envelopeHead = []byte(`{"v":` + strconv.Itoa(RecordSchemaVersion) + `,"updated_at":"`)
	envelopeMid  = []byte(`","record":`)
)

// decodeRecord returns the record inside an envelope. An envelope in the exact form Update writes
// is cut apart without a JSON pass (listing 1,000 tasks spent half its time validating
// envelopes); the record itself stays opaque here and its reader decodes, and so checks, it.
// Anything else goes through encoding/json.
func decodeRecord(id string, v []byte) ([]byte, error) {
	if rest, ok := bytes.CutPrefix(v, envelopeHead); ok && len(rest) > 0 && rest[len(rest)-1] == '}' {
		if i := bytes.Index(rest, envelopeMid); i >= 0 && i <= 64 && bytes.IndexAny(rest[:i], "\\\"") < 0 {
			if rec := bytes.TrimSpace(rest[i+len(envelopeMid) : len(rest)-1]); len(rec) > 0 && rec[0] == '{' {
				return bytes.Clone(rec), nil
			}
		}
	}
	var env recordEnvelope
	if err := json.Unmarshal(v, &env); err != nil {
		return nil, fmt.Errorf("store: task %q record envelope is corrupt: %w", id, err)
	}
	if env.V != RecordSchemaVersion {
		return nil, &SchemaVersionError{TaskID: id, Version: env.V}
	}
	return env.Record, nil
}

// List returns every task record in task-id order. A record with an unknown schema version
// fails the whole listing with *SchemaVersionError rather than being silently skipped.
func (s *Store) List() ([]Record, error) {
	if err := s.enter(); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	var out []Record
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(prefixTask), PrefetchValues: true, PrefetchSize: 16})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			id := string(it.Item().Key()[len(prefixTask):])
			err := it.Item().Value(func(v []byte) error {
				rec, err := decodeRecord(id, v)
				if err == nil {
					out = append(out, Record{TaskID: id, Data: rec})
				}
				return err
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// Update applies fn to the task's record and commits the new record and the events fn returns
// in one synced transaction, then delivers the events to subscribers. fn sees the current record
// (nil, false if none) and returns the next record (nil leaves it unchanged) and the events to
// append; an error from fn aborts with nothing written. Updates of one task are serialised, and
// fn may run more than once if badger reports a conflict, so it must not have side effects and
// must not call the Store.
//
// Update is durable: it returns after the commit is on disk. Append and UpdateUnsynced are not.
func (s *Store) Update(taskID string, fn func(cur []byte, exists bool) (next []byte, events []NewEvent, err error)) ([]Event, error) {
	return s.update(taskID, !s.opts.noSync, fn, nil)
}

// UpdateUnsynced is Update without waiting for the disk, for record changes as cheap to lose as
// Append's events: a power failure loses at most the changes since the last synced commit,
// never one from the middle, because the next Update's sync makes every earlier commit durable.
func (s *Store) UpdateUnsynced(taskID string, fn func(cur []byte, exists bool) (next []byte, events []NewEvent, err error)) ([]Event, error) {
	return s.update(taskID, false, fn, nil)
}

// update commits fn's record and events, or, when fn is nil, appends appended (Append).
func (s *Store) update(taskID string, sync bool, fn func(cur []byte, exists bool) (next []byte, events []NewEvent, err error), appended []NewEvent) ([]Event, error) {
	if err := checkID(taskID); err != nil {
		return nil, err
	}
	if err := s.enter(); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	t := s.task(taskID)
	t.mu.Lock()
	defer t.mu.Unlock()
	for attempt := 1; ; attempt++ {
		events, err := s.tryUpdate(t, taskID, fn, appended)
		if errors.Is(err, badger.ErrConflict) && attempt < maxAttempts {
			t.known, t.recordChecked = false, false
			continue
		}
		if errors.Is(err, badger.ErrConflict) {
			return nil, fmt.Errorf("store: update task %q: gave up after %d conflicts: %w", taskID, attempt, err)
		}
		if err != nil {
			return nil, err
		}
		if sync && len(events) > 0 {
			// The write-ahead log is sequential, so this also makes every earlier unsynced
			// Append durable: a crash can lose only a tail of appended events, never a gap.
			if err := s.db.Sync(); err != nil {
				return nil, fmt.Errorf("store: sync task %q: %w", taskID, err)
			}
			s.syncs.Add(1)
		}
		// Published under the task lock, so subscribers see each task's events in order.
		s.broker.publish(events)
		return events, nil
	}
}

func (s *Store) tryUpdate(t *taskState, id string, fn func([]byte, bool) ([]byte, []NewEvent, error), appended []NewEvent) ([]Event, error) {
	txn := s.db.NewTransaction(true)
	defer txn.Discard()
	var cur []byte
	var exists bool
	if fn != nil || !t.recordChecked {
		var err error
		if cur, exists, err = readRecord(txn, id); err != nil {
			return nil, err
		}
	}
	if !t.known {
		var err error
		if t.lastSeq, err = lastSeq(txn, id); err != nil {
			return nil, err
		}
		t.known = true
	}
	next, newEvents := []byte(nil), appended
	if fn != nil {
		var err error
		if next, newEvents, err = fn(cur, exists); err != nil {
			return nil, err
		}
	}
	if next == nil && len(newEvents) == 0 {
		t.recordChecked = t.recordChecked || exists
		return nil, nil
	}
	now := time.Now().UTC()
	if next != nil {
		if !json.Valid(next) {
			return nil, fmt.Errorf("%w: task %q record is not valid JSON", ErrInvalidArgument, id)
		}
		env, _ := json.Marshal(recordEnvelope{V: RecordSchemaVersion, UpdatedAt: now, Record: next})
		if err := txn.Set(taskKey(id), env); err != nil {
			return nil, fmt.Errorf("store: write task %q: %w", id, err)
		}
	}
	events := make([]Event, 0, len(newEvents))
	for i, ne := range newEvents {
		if ne.Type == "" || len(ne.Type) > maxTypeLen {
			return nil, fmt.Errorf("%w: event %d type must be 1..%d bytes", ErrInvalidArgument, i, maxTypeLen)
		}
		val, data, err := encodeEvent(now, ne)
		if err != nil {
			return nil, fmt.Errorf("%w: event %d (%s) data is not valid JSON: %v", ErrInvalidArgument, i, ne.Type, err)
		}
		ev := Event{TaskID: id, Seq: t.lastSeq + 1 + uint64(i), Time: now, Type: ne.Type, Data: data}
		key := eventKey(id, ev.Seq)
		// Reading the slot registers it for conflict detection and proves the cached sequence
		// is not stale.
		if _, err := txn.Get(key); err == nil {
			return nil, badger.ErrConflict
		} else if !errors.Is(err, badger.ErrKeyNotFound) {
			return nil, fmt.Errorf("store: read journal of %q: %w", id, err)
		}
		if err := txn.Set(key, val); err != nil {
			return nil, fmt.Errorf("store: append to journal of %q: %w", id, err)
		}
		events = append(events, ev)
	}
	if err := txn.Commit(); err != nil {
		if errors.Is(err, badger.ErrConflict) {
			return nil, err
		}
		return nil, fmt.Errorf("store: commit task %q: %w", id, err)
	}
	t.lastSeq += uint64(len(events))
	t.recordChecked = t.recordChecked || exists || next != nil
	return events, nil
}

// encodeEvent returns an event as the journal stores it, {"t":…,"type":…,"data":…} as
// encoding/json writes storedEvent, and its data compacted: the event's Data, live and
// replayed alike. Data that encoding/json would escape (<, >, & and U+2028/U+2029, which the
// journal stores escaped and the live event carries as they are) goes through encoding/json;
// any other data is compacted once, into the stored value, whose tail is then the event's Data.
func encodeEvent(now time.Time, ne NewEvent) (val, data []byte, err error) {
	if len(ne.Data) == 0 || bytes.ContainsAny(ne.Data, "<>&") || bytes.Contains(ne.Data, lineSep) || bytes.Contains(ne.Data, paraSep) || !plainJSONString(ne.Type) {
		if len(ne.Data) > 0 {
			var buf bytes.Buffer
			if err := json.Compact(&buf, ne.Data); err != nil {
				return nil, nil, err
			}
			data = buf.Bytes()
		}
		val, _ = json.Marshal(storedEvent{Time: now, Type: ne.Type, Data: data})
		return val, data, nil
	}
	val = make([]byte, 0, len(`{"t":"","type":"","data":}`)+len(time.RFC3339Nano)+len(ne.Type)+len(ne.Data))
	val = append(val, `{"t":"`...)
	val = now.AppendFormat(val, time.RFC3339Nano)
	val = append(append(append(val, `","type":"`...), ne.Type...), `","data":`...)
	start := len(val)
	buf := bytes.NewBuffer(val)
	if err := json.Compact(buf, ne.Data); err != nil {
		return nil, nil, err
	}
	val = append(buf.Bytes(), '}')
	return val, val[start : len(val)-1 : len(val)-1], nil
}

var (
	lineSep = []byte("\u2028")
	paraSep = []byte("\u2029")
)

// plainJSONString reports whether encoding/json writes s as it is between quotes: printable
// ASCII without a quote, backslash or the characters it escapes for HTML.
func plainJSONString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// lastSeq finds the highest journal sequence of a task, 0 if its journal is empty.
func lastSeq(txn *badger.Txn, id string) (uint64, error) {
	prefix := journalPrefix(id)
	it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix, Reverse: true})
	defer it.Close()
	it.Seek(append(bytes.Clone(prefix), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff))
	if !it.Valid() {
		return 0, nil
	}
	return seqOf(id, it.Item().Key())
}

func seqOf(id string, key []byte) (uint64, error) {
	rest := key[len(prefixEvent)+len(id)+1:]
	if len(rest) != 8 {
		return 0, fmt.Errorf("store: malformed journal key %q", key)
	}
	return binary.BigEndian.Uint64(rest), nil
}

// Append adds events to the task's journal without changing its record. It does not wait for
// the disk: it is for high-rate events (agent text, tool progress) whose loss in a power failure
// costs nothing but a tail of the journal; the next Update makes them durable.
func (s *Store) Append(taskID string, events ...NewEvent) ([]Event, error) {
	return s.update(taskID, false, nil, events)
}

// Syncs is how many commits have waited for the disk since Open: each costs a flush, the
// dearest step of a commit.
func (s *Store) Syncs() uint64 { return s.syncs.Load() }

// LastSeq returns the task's highest journal sequence, 0 if it has no events.
func (s *Store) LastSeq(taskID string) (uint64, error) {
	if err := checkID(taskID); err != nil {
		return 0, err
	}
	if err := s.enter(); err != nil {
		return 0, err
	}
	defer s.mu.RUnlock()
	var seq uint64
	err := s.db.View(func(txn *badger.Txn) error {
		var err error
		seq, err = lastSeq(txn, taskID)
		return err
	})
	return seq, err
}

// Journal returns up to limit events of the task with Seq >= fromSeq (0 counts as 1), in order.
func (s *Store) Journal(taskID string, fromSeq uint64, limit int) ([]Event, error) {
	if err := checkID(taskID); err != nil {
		return nil, err
	}
	if limit <= 0 {
		return nil, fmt.Errorf("%w: journal limit must be positive, got %d", ErrInvalidArgument, limit)
	}
	if err := s.enter(); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	return s.journal(taskID, max(fromSeq, 1), limit)
}

func (s *Store) journal(id string, fromSeq uint64, limit int) ([]Event, error) {
	var out []Event
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: journalPrefix(id), PrefetchValues: true, PrefetchSize: min(limit, 64)})
		defer it.Close()
		for it.Seek(eventKey(id, fromSeq)); it.Valid() && len(out) < limit; it.Next() {
			seq, err := seqOf(id, it.Item().Key())
			if err != nil {
				return err
			}
			var se storedEvent
			if err := it.Item().Value(func(v []byte) error { return json.Unmarshal(v, &se) }); err != nil {
				return fmt.Errorf("store: journal of %q at seq %d is corrupt: %w", id, seq, err)
			}
			out = append(out, Event{TaskID: id, Seq: seq, Time: se.Time, Type: se.Type, Data: se.Data})
		}
		return nil
	})
	return out, err
}

// Delete removes the task's record and its whole journal. The record goes first together with a
// marker, so a crash part-way leaves no record with a truncated journal; Open finishes the job.
// Subscribers of the task are not ended. Deleting an unknown task is not an error.
func (s *Store) Delete(taskID string) error {
	if err := checkID(taskID); err != nil {
		return err
	}
	if err := s.enter(); err != nil {
		return err
	}
	defer s.mu.RUnlock()
	t := s.task(taskID)
	t.mu.Lock()
	defer t.mu.Unlock()
	err := s.db.Update(func(txn *badger.Txn) error {
		if err := txn.Set(deletingKey(taskID), nil); err != nil {
			return err
		}
		return txn.Delete(taskKey(taskID))
	})
	if err == nil {
		err = s.dropJournal(taskID)
	}
	t.known, t.recordChecked = false, false
	if err != nil {
		return fmt.Errorf("store: delete task %q: %w", taskID, err)
	}
	return nil
}

// dropJournal deletes the journal in batches that fit badger's transaction limit, then the marker.
func (s *Store) dropJournal(id string) error {
	for {
		var keys [][]byte
		err := s.db.View(func(txn *badger.Txn) error {
			it := txn.NewIterator(badger.IteratorOptions{Prefix: journalPrefix(id)})
			defer it.Close()
			for it.Rewind(); it.Valid() && len(keys) < 1000; it.Next() {
				keys = append(keys, it.Item().KeyCopy(nil))
			}
			return nil
		})
		if err != nil {
			return err
		}
		if len(keys) == 0 {
			return s.db.Update(func(txn *badger.Txn) error { return txn.Delete(deletingKey(id)) })
		}
		wb := s.db.NewWriteBatch()
		for _, k := range keys {
			if err := wb.Delete(k); err != nil {
				wb.Cancel()
				return err
			}
		}
		if err := wb.Flush(); err != nil {
			return err
		}
	}
}

// Compact gives the space of deleted tasks back: it merges every table level into the last
// one, where deletion markers and the entries they hide are dropped (a bulk delete otherwise
// waits for compactions that a quiet store seldom runs), then rewrites value-log files until
// none is worth rewriting. Writes continue meanwhile; it is for after a prune.
func (s *Store) Compact() error {
	if err := s.enter(); err != nil {
		return err
	}
	defer s.mu.RUnlock()
	if err := s.db.Flatten(2); err != nil {
		return fmt.Errorf("store: compact: %w", err)
	}
	for !s.closed.Load() {
		if err := s.db.RunValueLogGC(gcDiscardRatio); err != nil {
			if errors.Is(err, badger.ErrNoRewrite) || errors.Is(err, badger.ErrRejected) {
				return nil
			}
			return fmt.Errorf("store: value log GC: %w", err)
		}
	}
	return nil
}

// finishDeletes completes deletions interrupted by a crash.
func (s *Store) finishDeletes() error {
	var ids []string
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(prefixDeleting)})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			ids = append(ids, string(it.Item().Key()[len(prefixDeleting):]))
		}
		return nil
	})
	for _, id := range ids {
		if err == nil {
			err = s.dropJournal(id)
		}
	}
	if err != nil {
		return fmt.Errorf("store: finish interrupted delete: %w", err)
	}
	return nil
}

// CursorKey returns the 32-byte secret used to sign pagination cursors, created on first use and
// kept in the database.
func (s *Store) CursorKey() ([]byte, error) {
	s.cursorMu.Lock()
	defer s.cursorMu.Unlock()
	if s.cursorKey != nil {
		return bytes.Clone(s.cursorKey), nil
	}
	if err := s.enter(); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	var key []byte
	err := s.db.Update(func(txn *badger.Txn) error {
		item, err := txn.Get([]byte(keyCursor))
		if err == nil {
			key, err = item.ValueCopy(nil)
			if err == nil && len(key) != 32 {
				err = fmt.Errorf("stored cursor key has %d bytes, want 32", len(key))
			}
			return err
		}
		if !errors.Is(err, badger.ErrKeyNotFound) {
			return err
		}
		key = make([]byte, 32)
		rand.Read(key)
		return txn.Set([]byte(keyCursor), key)
	})
	if err != nil {
		return nil, fmt.Errorf("store: cursor key: %w", err)
	}
	s.cursorKey = key
	return bytes.Clone(key), nil
}

package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"time"
	"unicode/utf8"

	"reasonixctl/core"
	"reasonixctl/store"
)

// newEvent is an event to append to a task's journal together with a record change.
type newEvent struct {
	Type string
	Data any
}

func event(typ string, data any) newEvent { return newEvent{Type: typ, Data: data} }

// maxEventData bounds one journal event's data so that a flooding worker cannot grow the
// journal without limit per message.
const maxEventData = 64 << 10

func encodeEvents(evs []newEvent) []store.NewEvent {
	out := make([]store.NewEvent, 0, len(evs))
	for _, ev := range evs {
		var raw json.RawMessage
		if ev.Data != nil {
			b, err := redactData(ev.Data)
			if err != nil {
				b, _ = json.Marshal(core.TextData{Text: "unencodable event data: " + err.Error()})
			}
			if len(b) > maxEventData {
				b, _ = json.Marshal(core.TextData{Text: "event data over 64 KiB dropped"})
			}
			raw = b
		}
		out = append(out, store.NewEvent{Type: ev.Type, Data: raw})
	}
	return out
}

// load reads a task's record.
func (e *Engine) load(id string) (*taskRecord, error) {
	if err := checkTaskID(id); err != nil {
		return nil, err
	}
	b, err := e.store.Get(id)
	if err != nil {
		return nil, e.storeError(id, err)
	}
	return decodeRecord(b)
}

// update applies fn to the task's current record and commits the result with fn's events in
// one synced transaction. fn receives a private copy; returning nil events and an unchanged
// record is allowed. Waiters are woken after the commit.
func (e *Engine) update(id string, fn func(r *taskRecord) ([]newEvent, error)) (*taskRecord, error) {
	return e.commit(id, e.store.Update, fn)
}

// updateUnsynced is update without waiting for the disk, for changes nothing outside the store
// acts on before the task's next synced update: a worker's status and usage, and progress
// between two steps that are synced. A power failure loses them as if it had come just before
// them. Each synced update costs a disk flush, and a worker reports its status many times a turn.
func (e *Engine) updateUnsynced(id string, fn func(r *taskRecord) ([]newEvent, error)) (*taskRecord, error) {
	return e.commit(id, e.store.UpdateUnsynced, fn)
}

// storeWrite is store.Update or store.UpdateUnsynced.
type storeWrite func(id string, fn func(cur []byte, exists bool) ([]byte, []store.NewEvent, error)) ([]store.Event, error)

// commit is update and updateUnsynced, with write deciding whether the commit waits for the disk.
func (e *Engine) commit(id string, write storeWrite, fn func(r *taskRecord) ([]newEvent, error)) (*taskRecord, error) {
	var out *taskRecord
	var enc []byte // out as stored
	_, err := write(id, func(cur []byte, exists bool) ([]byte, []store.NewEvent, error) {
		if !exists {
			return nil, nil, core.Errorf(core.CodeTaskNotFound, nil, "Unknown task: %s", id)
		}
		r, err := decodeRecord(cur)
		if err != nil {
			return nil, nil, err
		}
		evs, err := fn(r)
		if err != nil {
			return nil, nil, err
		}
		out = r
		if len(evs) == 0 && bytes.Equal(r.encode(), cur) {
			// Nothing changed: no write, and updated_at keeps meaning "last change".
			enc = cur
			return nil, nil, nil
		}
		r.UpdatedAt = e.now()
		enc = r.encode()
		return enc, encodeEvents(evs), nil
	})
	if err != nil {
		return nil, e.storeError(id, err)
	}
	e.changedTo(id, out, enc)
	return out, nil
}

// create stores a new record with its first events; an existing id is task_conflict.
func (e *Engine) create(r *taskRecord, evs []newEvent) error {
	_, err := e.store.Update(r.TaskID, func(cur []byte, exists bool) ([]byte, []store.NewEvent, error) {
		if exists {
			return nil, nil, core.Errorf(core.CodeTaskConflict, nil, "task %s already exists", r.TaskID)
		}
		return r.encode(), encodeEvents(evs), nil
	})
	if err != nil {
		return e.storeError(r.TaskID, err)
	}
	e.changed(r.TaskID)
	return nil
}

// appendEvents journals events that change nothing in the record (agent text, tool calls).
func (e *Engine) appendEvents(id string, evs ...newEvent) {
	if _, err := e.store.Append(id, encodeEvents(evs)...); err != nil {
		e.log.Warn("journal append failed", "task", id, "err", err)
	}
}

// checkTaskID refuses, before the store sees it, an id no task can have: the task id rule is
// core's, and the store checks only what its keys need.
func checkTaskID(id string) error {
	if core.ValidTaskID(id) {
		return nil
	}
	return core.InvalidRequest("task id", []core.Issue{{Path: "task_id", Message: "must match " + core.TaskIDPattern}})
}

func (e *Engine) storeError(id string, err error) error {
	var ce *core.Error
	if errors.As(err, &ce) {
		return ce
	}
	if errors.Is(err, store.ErrNotFound) {
		return core.Errorf(core.CodeTaskNotFound, nil, "Unknown task: %s", id)
	}
	if errors.Is(err, store.ErrInvalidArgument) {
		// An event or record the store cannot take.
		return core.Errorf(core.CodeInvalidRequest, nil, "%w", err)
	}
	var sv *store.SchemaVersionError
	if errors.As(err, &sv) {
		return core.Errorf(core.CodeInvalidState, nil, "%w", err)
	}
	return core.Errorf(core.CodeInternalError, nil, "state store: %w", err)
}

func toEvent(ev store.Event) core.Event {
	return core.Event{TaskID: ev.TaskID, Seq: ev.Seq, Time: ev.Time, Type: ev.Type, Data: ev.Data}
}

func (e *Engine) now() time.Time {
	if e.cfg.Now != nil {
		return e.cfg.Now()
	}
	return time.Now()
}

// redactData is redactJSON of an event's data. Text (agent messages and thoughts, most of the
// events a streaming worker makes) is redacted as it is and encoded once: its JSON form is an
// object with the one key "text", which redaction leaves, so the round trip through a decoded
// value writes the same bytes. Text that is not valid UTF-8 takes the round trip, which
// replaces each invalid byte before redaction sees it.
func redactData(v any) ([]byte, error) {
	switch t := v.(type) {
	case core.AgentMessageData:
		if utf8.ValidString(t.Text) {
			return json.Marshal(core.AgentMessageData{Text: redactText(t.Text)})
		}
	case core.AgentThoughtData:
		if utf8.ValidString(t.Text) {
			return json.Marshal(core.AgentThoughtData{Text: redactText(t.Text)})
		}
	case core.TextData:
		if utf8.ValidString(t.Text) {
			return json.Marshal(core.TextData{Text: redactText(t.Text)})
		}
	}
	return redactJSON(v)
}

// redactJSON encodes v with every secret redacted: redaction works on decoded JSON values, so v
// takes a round trip through its JSON form first.
func redactJSON(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var generic any
	if err := json.Unmarshal(b, &generic); err != nil {
		return nil, err
	}
	return json.Marshal(redactValue(generic))
}

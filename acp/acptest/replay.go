package acptest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// A Replay plays the agent's side of a recorded ACP session (the transcripts of real agents:
// one JSON object a line, {"dir": "a2c"|"c2a", "msg": …}) and checks the client's side: the
// client must send the recorded methods in the recorded order, and each of its answers to the
// agent's requests goes to Check with the recorded one. The ids the client chooses for its
// requests are mapped onto the recording's. Requests of the client's that the recording lacks
// (session/set_mode, session/set_config_option, and anything after the recording's end such as
// session/close) are answered with an empty result and listed in Extra.
type Replay struct {
	Entries []ReplayEntry
	// Check judges the client's answer got to the agent's request req, recorded as rec; nil
	// accepts any answer.
	Check func(req, got, rec ReplayMsg) error

	mu    sync.Mutex
	extra []string
	seen  []ReplayMsg
}

// ReplayEntry is one line of a transcript.
type ReplayEntry struct {
	Dir string          `json:"dir"`
	Msg json.RawMessage `json:"msg"`
}

// ReplayMsg is a JSON-RPC message of a transcript.
type ReplayMsg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

// ParseTranscript reads a transcript, with every occurrence of the bytes placeholder replaced
// by workspace (the recordings say /WORKSPACE for the session's cwd).
func ParseTranscript(b []byte, placeholder, workspace string) ([]ReplayEntry, error) {
	if placeholder != "" {
		b = bytes.ReplaceAll(b, []byte(placeholder), []byte(workspace))
	}
	var out []ReplayEntry
	for i, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var e ReplayEntry
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, fmt.Errorf("acptest: transcript line %d: %w", i+1, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// Extra lists the methods of the client's requests the recording lacks, in order.
func (a *Replay) Extra() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.extra...)
}

// Seen lists the client's messages that matched the recording, in order.
func (a *Replay) Seen() []ReplayMsg {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]ReplayMsg(nil), a.seen...)
}

// Run plays the recording on w, reading the client from r. It returns once the recording is
// played (nil) or the client departs from it; reading goes on behind it until r ends.
func (a *Replay) Run(r io.Reader, w io.Writer) error {
	dec := bufio.NewReader(r)
	ids := map[string]json.RawMessage{} // recorded id of a client request → the client's id
	agentReqs := map[string]ReplayMsg{}
	var wmu sync.Mutex
	send := func(m []byte) error {
		wmu.Lock()
		defer wmu.Unlock()
		_, err := w.Write(append(append([]byte(nil), m...), '\n'))
		return err
	}
	empty := func(id json.RawMessage) error {
		return send([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`, id)))
	}
	next := func() (ReplayMsg, error) {
		for {
			line, err := dec.ReadBytes('\n')
			if err != nil {
				return ReplayMsg{}, err
			}
			var m ReplayMsg
			if err := json.Unmarshal(line, &m); err != nil {
				return ReplayMsg{}, fmt.Errorf("client wrote %q: %w", line, err)
			}
			if m.Method == "session/set_mode" || m.Method == "session/set_config_option" {
				a.mu.Lock()
				a.extra = append(a.extra, m.Method)
				a.mu.Unlock()
				if err := empty(m.ID); err != nil {
					return ReplayMsg{}, err
				}
				continue
			}
			return m, nil
		}
	}
	for i, e := range a.Entries {
		var rec ReplayMsg
		if err := json.Unmarshal(e.Msg, &rec); err != nil {
			return err
		}
		if e.Dir == "a2c" {
			msg := []byte(e.Msg)
			if rec.Method == "" && len(rec.ID) > 0 {
				cid, ok := ids[string(rec.ID)]
				if !ok {
					return fmt.Errorf("entry %d answers id %s the client never used", i, rec.ID)
				}
				var m map[string]json.RawMessage
				_ = json.Unmarshal(msg, &m)
				m["id"] = cid
				msg, _ = json.Marshal(m)
			} else if rec.Method != "" && len(rec.ID) > 0 {
				agentReqs[string(rec.ID)] = rec
			}
			if err := send(msg); err != nil {
				return fmt.Errorf("entry %d: %w", i, err)
			}
			continue
		}
		got, err := next()
		if err != nil {
			return fmt.Errorf("entry %d: waiting for the client's %s: %w", i, describeMsg(rec), err)
		}
		a.mu.Lock()
		a.seen = append(a.seen, got)
		a.mu.Unlock()
		switch {
		case rec.Method != "":
			if got.Method != rec.Method {
				return fmt.Errorf("entry %d: client sent %s, recorded %s", i, describeMsg(got), describeMsg(rec))
			}
			if len(rec.ID) > 0 {
				ids[string(rec.ID)] = got.ID
			}
		default:
			if got.Method != "" || string(got.ID) != string(rec.ID) {
				return fmt.Errorf("entry %d: client sent %s, recorded the answer to %s", i, describeMsg(got), rec.ID)
			}
			if a.Check != nil {
				if err := a.Check(agentReqs[string(rec.ID)], got, rec); err != nil {
					return fmt.Errorf("entry %d: %w", i, err)
				}
			}
		}
	}
	go func() {
		for {
			m, err := next()
			if err != nil {
				return
			}
			if m.Method != "" && len(m.ID) > 0 {
				a.mu.Lock()
				a.extra = append(a.extra, m.Method)
				a.mu.Unlock()
				_ = empty(m.ID)
			}
		}
	}()
	return nil
}

func describeMsg(m ReplayMsg) string {
	if m.Method != "" {
		return m.Method
	}
	return "answer " + string(m.ID)
}

// PermissionAnswer is the optionId of a permission answer, "cancelled" for a cancelled one.
func PermissionAnswer(m ReplayMsg) string {
	var r struct {
		Outcome struct {
			Outcome  string `json:"outcome"`
			OptionID string `json:"optionId"`
		} `json:"outcome"`
	}
	_ = json.Unmarshal(m.Result, &r)
	if r.Outcome.Outcome == "cancelled" {
		return "cancelled"
	}
	return r.Outcome.OptionID
}

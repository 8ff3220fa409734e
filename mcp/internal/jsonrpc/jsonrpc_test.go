package jsonrpc

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

type echoHandler struct{}

func (echoHandler) Route(req *Request) (Serve, bool) {
	switch req.Method {
	case "echo":
		return func(context.Context, *Conn) Reply { return Reply{Result: json.RawMessage(req.Params)} }, false
	case "block":
		return func(ctx context.Context, _ *Conn) Reply { <-ctx.Done(); return Reply{Result: "late"} }, true
	}
	return nil, false
}

// run serves lines and returns every answer once input ends.
func run(t *testing.T, lines ...string) []Response {
	t.Helper()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), strings.NewReader(strings.Join(lines, "\n")+"\n"), outW,
			echoHandler{}, Options{MaxMessageBytes: 200, MaxPending: 4, ShutdownGrace: 5 * time.Second})
		outW.Close()
	}()
	var answers []Response
	sc := bufio.NewScanner(outR)
	for sc.Scan() {
		var r Response
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("not a response: %q", sc.Text())
		}
		if r.Error != nil {
			r.Error.Message = ""
		}
		answers = append(answers, r)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	return answers
}

func TestResponsesAreNeverAnswered(t *testing.T) {
	got := run(t,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","error":{"code":1,"message":"x"}}`,
		`{"jsonrpc":"1.0","id":{},"result":null}`,
		`{"jsonrpc":"2.0","id":2,"method":"echo","params":[2]}`)
	if len(got) != 1 || string(got[0].ID) != "2" {
		t.Fatalf("got %+v, want only the answer to id 2", got)
	}
}

func TestEnvelopeErrors(t *testing.T) {
	got := run(t,
		`not json`,
		`[1]`,
		`{"jsonrpc":"2.0","id":true,"method":"echo"}`,
		`{"jsonrpc":"2.0","id":3,"method":"nope"}`,
		`{"jsonrpc":"2.0","id":4,"method":"echo","params":"`+strings.Repeat("x", 200)+`"}`,
		`{"jsonrpc":"2.0","id":"c","method":"block"}`,
		`{"jsonrpc":"2.0","method":"`+CancelMethod+`","params":{"requestId":"c"}}`,
		`{"jsonrpc":"2.0","id":18446744073709551617,"method":"echo","params":{}}`)
	want := []struct {
		id   string
		code int
	}{{"null", CodeParseError}, {"null", CodeInvalidRequest}, {"null", CodeInvalidRequest},
		{"3", CodeMethodNotFound}, {"null", CodeInvalidRequest}, {"18446744073709551617", 0}}
	if len(got) != len(want) {
		t.Fatalf("got %d answers %+v, want %d (the cancelled call gets none)", len(got), got, len(want))
	}
	for i, w := range want {
		code := 0
		if got[i].Error != nil {
			code = got[i].Error.Code
		}
		if string(got[i].ID) != w.id || code != w.code {
			t.Errorf("answer %d: id %s code %d, want id %s code %d", i, got[i].ID, code, w.id, w.code)
		}
	}
}

func TestIDKey(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{{`7`, `7.0`, true}, {`7`, `"7"`, false}, {`1e400`, `1e400`, true}, {`9007199254740993`, `9007199254740992`, false}, {`70e-1`, `7`, true}, {`-0`, `0.0`, true}, {`-7`, `7`, false}, {`1E+2`, `100`, true}} {
		ka, okA := IDKey(json.RawMessage(tc.a))
		kb, okB := IDKey(json.RawMessage(tc.b))
		if !okA || !okB || (ka == kb) != tc.same {
			t.Errorf("%s vs %s: keys %q %q", tc.a, tc.b, ka, kb)
		}
	}
	for _, bad := range []string{`null`, `true`, `{}`, `[]`, ``} {
		if _, ok := IDKey(json.RawMessage(bad)); ok {
			t.Errorf("%q accepted as an id", bad)
		}
	}
}

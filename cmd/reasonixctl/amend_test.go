package main

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"reasonixctl/acp/acptest"
	"reasonixctl/core"
	"reasonixctl/core/engine"
)

// `task amend` drops and adds checks of a task in review through the engine's Control, as
// reasonix_control amend_checks does; a bad request is a usage error.
func TestTaskAmend(t *testing.T) {
	state := privateDir(t)
	t.Setenv("CODEX_REASONIX_STATE_DIR", state)
	repo := testRepo(t)
	open := func() *engine.Engine {
		e, err := engine.Open(engine.Config{StateDir: state, Mode: "test", Worker: engine.PipeWorker(func(ctx context.Context, r io.Reader, w io.Writer) error {
			return acptest.Serve(ctx, r, w, acptest.Options{})
		})})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	e := open()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := e.Delegate(ctx, core.DelegateRequest{TaskID: "rev", Contract: json.RawMessage(taskTestContract),
		Authority: core.Authority{Cwd: repo, Writable: true}})
	if err != nil || res.State != core.StateReviewRequired {
		t.Fatalf("delegate: %v %+v", err, res)
	}
	e.Close()

	for _, args := range [][]string{
		{"amend"},
		{"amend", "rev"},
		{"amend", "rev", "--add-json", `{"id":"x"`},
		{"amend", "rev", "--add-json", `{"id":"x","argv":["true"],"proves":["y"]}`},
		{"amend", "rev", "--add-json", `{"id":"x","argv":["true"]}{}`},
		{"amend", "rev", "--drop", "nope"},                            // invalid_request from the engine
		{"amend", "rev", "--add-json", `{"id":"-x","argv":["true"]}`}, // likewise
	} {
		code, out, errOut := runCmd(taskCmd, args...)
		if code != 2 || out != "" || errOut == "" {
			t.Errorf("task %q: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}

	code, out, errOut := runCmd(taskCmd, "amend", "rev", "--drop", "exists",
		"--add-json", `{"id":"non-empty","argv":["test","-s","result.txt"],"timeout_seconds":30}`)
	if code != 0 || !strings.HasPrefix(out, "Amended task rev's checks: dropped exists; added non-empty (proves non-empty-passes).") {
		t.Fatalf("amend: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	e = open()
	defer e.Close()
	d, err := e.Get(ctx, "rev")
	if err != nil || d.View.ContractHash == res.ContractHash || d.View.State != core.StateReviewRequired {
		t.Fatalf("after amending: %v %+v", err, d.View)
	}
	var ids []string
	for _, c := range d.Criteria {
		ids = append(ids, c.ID+":"+c.Evidence)
	}
	if strings.Join(ids, " ") != "result:review reviewed:review non-empty-passes:automated" {
		t.Fatalf("criteria: %v", ids)
	}
	if !strings.Contains(out, d.View.ContractHash) {
		t.Fatalf("the output does not name the new contract hash: %s", out)
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"reasonixctl/core/doctor"
	"reasonixctl/core/engine"
	"reasonixctl/core/remote"
)

func doctorOwnerCheck(t *testing.T) doctor.Check {
	t.Helper()
	_, out, errOut := runCmd(func(_ []string, out, errb *bytes.Buffer) int { return runDoctor(true, out, errb) })
	var report struct {
		Checks []doctor.Check `json:"checks"`
	}
	if err := json.Unmarshal([]byte(out), &report); err != nil {
		t.Fatalf("doctor --json: %v\n%s\n%s", err, out, errOut)
	}
	for _, c := range report.Checks {
		if c.Name == "owner" {
			return c
		}
	}
	t.Fatalf("no owner check in %s", out)
	return doctor.Check{}
}

// While another process owns the state directory and serves its socket, the task commands and
// the doctor go through the socket; when the socket does not answer, they say so.
func TestTaskCommandsBesideAnOwner(t *testing.T) {
	seedTasks(t)
	state := os.Getenv("CODEX_REASONIX_STATE_DIR")
	if c := doctorOwnerCheck(t); c.Status != doctor.CheckOK || !strings.Contains(c.Detail, "no reasonixctl owns") {
		t.Fatalf("doctor without an owner: %+v", c)
	}
	e, err := engine.Open(engine.Config{StateDir: state, Mode: "mcp"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	srv, err := remote.Serve(context.Background(), e, state, remote.Info{Mode: "mcp", Version: "test", StartedAt: time.Now()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	code, out, errOut := runCmd(taskCmd, "list", "--all", "--json")
	if code != 0 || !strings.Contains(out, `"task_id": "done"`) || !strings.Contains(out, `"task_id": "halted"`) {
		t.Fatalf("task list beside an owner: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = runCmd(taskCmd, "archive", "done")
	if code != 0 || !strings.Contains(out, "Dry run, nothing was changed. Archiving task done (completed)") {
		t.Fatalf("task archive beside an owner: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = runCmd(taskCmd, "archive", "nope!")
	if code != 2 || !strings.Contains(errOut, "malformed") {
		t.Fatalf("a bad id beside an owner: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = runCmd(taskCmd, "prune")
	if code != 0 || !strings.Contains(out, "nothing would be pruned") {
		t.Fatalf("task prune beside an owner: exit %d\n%s\n%s", code, out, errOut)
	}
	// stats reads the journals through the owner: the same report as with the engine.
	code, out, errOut = runCmd(func(_ []string, out, errb *bytes.Buffer) int { return runStats(time.Time{}, "", true, out, errb) })
	var rep struct {
		Tasks     int            `json:"tasks"`
		ByOutcome map[string]int `json:"by_outcome"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.Tasks < 2 || rep.ByOutcome["completed"] < 1 {
		t.Fatalf("stats beside an owner: exit %d\n%s\n%s", code, out, errOut)
	}
	c := doctorOwnerCheck(t)
	if c.Status != doctor.CheckOK || !strings.Contains(c.Detail, "owned by reasonixctl --mcp (pid ") || !strings.Contains(c.Detail, fmt.Sprintf("socket answers (protocol %d)", remote.Protocol)) {
		t.Fatalf("doctor beside an owner: %+v", c)
	}

	// The owner stops serving but keeps the directory.
	srv.Close()
	code, out, errOut = runCmd(taskCmd, "list")
	if code != 1 || !strings.Contains(errOut, "in use by reasonixctl pid") || !strings.Contains(errOut, "its socket does not answer") {
		t.Fatalf("task list beside a silent owner: exit %d\n%s\n%s", code, out, errOut)
	}
	if c := doctorOwnerCheck(t); c.Status != doctor.CheckFail || !strings.Contains(c.Detail, "does not answer") {
		t.Fatalf("doctor beside a silent owner: %+v", c)
	}
}

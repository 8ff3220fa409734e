package mcp

import (
	"context"
	"testing"

	"reasonixctl/core"
)

// worker reaches the core as sent, is optional, and must be one of core.WorkerNames: the
// schema's enum refuses anything else before the core sees it; the task's view shows it.
func TestDelegateWorker(t *testing.T) {
	h := newHarness(t, Options{})
	h.fake.delegate = func(_ context.Context, req core.DelegateRequest) (core.DelegateResult, error) {
		v := sampleView(req.TaskID)
		v.Worker = req.Worker
		return core.DelegateResult{TaskView: v}, nil
	}
	for _, name := range core.WorkerNames {
		args := delegateArgs("w-" + name)
		args["worker"] = name
		if got := structuredOf(t, h.call(ToolDelegate, args, writableMeta("/r"))); got["worker"] != name {
			t.Fatalf("%s: result %v", name, got)
		}
	}
	h.call(ToolDelegate, delegateArgs("w-none"), writableMeta("/r"))
	d, _, _ := h.fake.calls()
	if len(d) != len(core.WorkerNames)+1 {
		t.Fatalf("%d delegate calls", len(d))
	}
	for i, name := range core.WorkerNames {
		if d[i].Worker != name {
			t.Fatalf("call %d: worker %q, want %q", i, d[i].Worker, name)
		}
	}
	if last := d[len(d)-1]; last.Worker != "" {
		t.Fatalf("no worker sent, core got %q", last.Worker)
	}

	for _, bad := range []any{"cursor", "Claude", "", 3, []any{"codex"}} {
		args := delegateArgs("w-bad")
		args["worker"] = bad
		e := envelopeOf(t, h.callUnchecked(ToolDelegate, args, writableMeta("/r")))
		if e.Code != core.CodeInvalidRequest {
			t.Fatalf("worker %v: %+v", bad, e)
		}
	}
	if d, _, _ := h.fake.calls(); len(d) != len(core.WorkerNames)+1 {
		t.Fatal("a delegate with an unknown worker reached the core")
	}
}

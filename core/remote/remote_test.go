package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"reasonixctl/acp/acptest"
	"reasonixctl/core"
	"reasonixctl/store"
)

var errorsAs = errors.As

// Every method of the service and the retention extras, through the socket, against a real
// engine and the scripted worker.
func TestEveryMethodRoundTrips(t *testing.T) {
	o := newOwner(t, nil)
	c := o.dial(t, RoleCLI)
	ctx := ctxT(t, 60*time.Second)

	if got := c.Owner(); got.PID != os.Getpid() || got.Mode != "mcp" || got.Protocol != Protocol || got.Version != "test" {
		t.Fatalf("owner %+v", got)
	}
	res, err := c.Delegate(ctx, o.request("round"))
	if err != nil {
		t.Fatal(err)
	}
	if res.State != core.StateReviewRequired || res.ReviewBundle == nil || !strings.Contains(res.Diff, "result.txt") {
		t.Fatalf("delegate %+v", res)
	}
	list, err := c.List(ctx, core.ListFilter{})
	if err != nil || len(list) != 1 || list[0].TaskID != "round" {
		t.Fatalf("list %v %+v", err, list)
	}
	d, err := c.Get(ctx, "round")
	want, _ := o.e.Get(ctx, "round")
	if err != nil || d.View != want.View || d.Diff != want.Diff || d.LastSeq != want.LastSeq || !d.CreatedAt.Equal(want.CreatedAt) {
		t.Fatalf("get %v\n%+v\nwant %+v", err, d, want)
	}
	in, err := c.Inspect(ctx, core.InspectRequest{TaskID: "round", Include: []string{"status", "changed_files"}})
	if err != nil || string(in.Sections["changed_files"]) != `["result.txt"]` {
		t.Fatalf("inspect %v %+v", err, in)
	}

	// Subscribe replays the journal from seq 1, then goes live.
	sub, err := c.Subscribe(ctx, core.SubscribeOptions{TaskID: "round", FromSeq: 1})
	if err != nil {
		t.Fatal(err)
	}
	for seq := uint64(1); seq <= d.LastSeq; seq++ {
		ev := receive(t, sub)
		if ev.Seq != seq || ev.TaskID != "round" {
			t.Fatalf("replayed seq %d, want %d", ev.Seq, seq)
		}
	}
	// The review calls a dashboard makes.
	cm, err := c.Comment(ctx, core.CommentRequest{TaskID: "round", Path: "result.txt", Line: 1, Side: "new", Body: "fine", Hunk: []string{"+ok"}})
	if err != nil || cm.ID == "" || cm.Status != "open" {
		t.Fatalf("comment %v %+v", err, cm)
	}
	if _, err := c.Comment(ctx, core.CommentRequest{TaskID: "round", ID: cm.ID, Delete: true}); err != nil {
		t.Fatalf("delete comment: %v", err)
	}
	file, err := c.ReviewFile(ctx, "round", "result.txt")
	if err != nil || string(file) != "ok\n" {
		t.Fatalf("review file %v %q", err, file)
	}
	pv, err := c.CherryPickPreview(ctx, "round")
	if err != nil || !pv.Clean || pv.Of != "review_tree" {
		t.Fatalf("preview %v %+v", err, pv)
	}
	_, err = c.SendComments(ctx, "no-such-task")
	mustCode(t, err, core.CodeTaskNotFound)
	// The dashboard's draft: written by the owner under its state directory.
	dr, err := c.DraftContract(ctx, core.DraftRequest{Dir: o.repo})
	if err != nil || !strings.HasPrefix(dr.Path, o.dir+string(os.PathSeparator)) || len(dr.Draft.JSON) == 0 || dr.Draft.Root == "" {
		t.Fatalf("draft %v %+v", err, dr)
	}
	if raw, err := os.ReadFile(dr.Path); err != nil || string(raw) != string(dr.Draft.JSON) {
		t.Fatalf("draft file %v:\n%s\nwant\n%s", err, raw, dr.Draft.JSON)
	}
	_, err = c.DraftContract(ctx, core.DraftRequest{Dir: "relative/dir"})
	mustCode(t, err, core.CodeInvalidRequest)

	rev := res.ReviewRevision
	v, err := c.Control(ctx, core.Finalize{TaskID: "round", ReviewSummary: "fine",
		ApprovedReviewCriteria: []string{"looks-right"}, ExpectedReviewRevision: &rev, ExpectedReviewTreeHash: res.ReviewTreeHash})
	if err != nil || v.State != core.StateCompleted {
		t.Fatalf("finalize %v %+v", err, v)
	}
	if ev := receive(t, sub); ev.Seq != d.LastSeq+1 {
		t.Fatalf("first live event seq %d, want %d", ev.Seq, d.LastSeq+1)
	}

	journal, err := c.Journal(ctx, "round")
	wantJournal, _ := o.e.Journal(ctx, "round")
	if err != nil || len(journal) != len(wantJournal) || journal[len(journal)-1].Seq != wantJournal[len(wantJournal)-1].Seq {
		t.Fatalf("journal %v: %d events, want %d", err, len(journal), len(wantJournal))
	}
	fin, _ := o.e.Get(ctx, "round")
	if len(fin.Verification) == 0 {
		t.Fatal("no verification to read the log of")
	}
	page, err := c.VerificationLog(ctx, "round", fin.Verification[0].ID, 0, 1<<10)
	wantPage, _ := o.e.VerificationLog(ctx, "round", fin.Verification[0].ID, 0, 1<<10)
	if err != nil || normalJSON(t, page) != normalJSON(t, wantPage) {
		t.Fatalf("verification log %v %+v, want %+v", err, page, wantPage)
	}
	_, err = c.VerificationLog(ctx, "round", "no-such-check", 0, 1<<10)
	mustCode(t, err, core.CodeInvalidRequest)

	stored, err := c.ListStored(ctx, core.ListFilter{All: true})
	if err != nil || len(stored) != 1 || stored[0].Storage != core.StorageLive || stored[0].View.State != core.StateCompleted {
		t.Fatalf("list stored %v %+v", err, stored)
	}
	ar, err := c.Archive(ctx, "round", true)
	if err != nil || !ar.Applied || ar.ArchivedAt == nil || ar.Branch == "" {
		t.Fatalf("archive %v %+v", err, ar)
	}
	pr, err := c.Prune(ctx, 0, false)
	if err != nil || len(pr) != 1 || pr[0].TaskID != "round" || pr[0].Applied {
		t.Fatalf("prune %v %+v", err, pr)
	}
	pr, err = c.Prune(ctx, 0, true)
	if err != nil || len(pr) != 1 || !pr[0].Applied {
		t.Fatalf("prune --apply %v %+v", err, pr)
	}
	stored, _ = o.e.ListStored(ctx, core.ListFilter{All: true})
	if len(stored) != 1 || stored[0].Storage != core.StorageTombstone {
		t.Fatalf("after prune %+v", stored)
	}
}

func receive(t *testing.T, sub *core.Subscription) core.Event {
	t.Helper()
	select {
	case ev, ok := <-sub.C:
		if !ok {
			t.Fatalf("subscription ended: %v", sub.Err())
		}
		return ev
	case <-time.After(30 * time.Second):
		t.Fatal("no event within 30s")
	}
	return core.Event{}
}

// core.Error crosses the wire with its code, message, retryability, next action and details,
// and callers' errors.As finds it.
func TestErrorsKeepTheirType(t *testing.T) {
	o := newOwner(t, nil)
	c := o.dial(t, RoleCLI)
	ctx := ctxT(t, 30*time.Second)

	_, err := c.Get(ctx, "missing")
	ce := mustCode(t, err, core.CodeTaskNotFound)
	want := core.AsError(func() error { _, err := o.e.Get(ctx, "missing"); return err }())
	if ce.Message != want.Message || ce.NextAction != core.NextCreateNewTask || ce.Retryable {
		t.Fatalf("got %+v, want %+v", ce, want)
	}

	bad := o.request("bad")
	bad.Contract = json.RawMessage(`{"schema_version": 1}`)
	_, err = c.Delegate(ctx, bad)
	ce = mustCode(t, err, core.CodeInvalidContract)
	_, direct := o.e.Delegate(ctx, bad)
	wantDetails, gotDetails := normalJSON(t, core.AsError(direct).Details), normalJSON(t, ce.Details)
	if len(ce.Details) == 0 || string(gotDetails) != string(wantDetails) || ce.NextAction != core.NextFixRequest {
		t.Fatalf("details %s, want %s", gotDetails, wantDetails)
	}

	if _, err := c.Subscribe(ctx, core.SubscribeOptions{TaskID: "missing", FromSeq: 1}); err == nil {
		t.Fatal("subscribing to a missing task succeeded")
	} else {
		mustCode(t, err, core.CodeTaskNotFound)
	}
	_, err = c.Archive(ctx, "../x", false)
	mustCode(t, err, core.CodeInvalidRequest)
}

// Authority and PermissionMode are kept out of core's JSON, yet must reach the owner's engine:
// without the Authority the engine has no repository, and without the supervised mode an
// unknown command would be denied instead of asked.
func TestAuthorityAndPermissionModeCross(t *testing.T) {
	o := newOwner(t, turn(acptest.Step{Shell: &acptest.Shell{Command: "make lint", Output: "fine"}, Permission: "ask"}, writeResult()))
	c := o.dial(t, RoleCLI)
	ctx := ctxT(t, 60*time.Second)
	req := o.request("asked")
	req.PermissionMode = core.PermissionSupervised
	res, err := c.Delegate(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.State != core.StateWaitingPermission || res.ActiveInteraction == nil || res.ActiveInteraction.Request.Argv[0] != "make" {
		t.Fatalf("delegate %+v", res)
	}
	d, _ := o.e.Get(ctx, "asked")
	if d.Repository != o.repo {
		t.Fatalf("repository %q, want %q", d.Repository, o.repo)
	}
	v, err := c.Control(ctx, core.Respond{TaskID: "asked", InteractionID: res.ActiveInteraction.ID, Decision: "allow"})
	if err != nil || v.State != core.StateRunning {
		t.Fatalf("respond %v %+v", err, v)
	}
	in, err := c.Inspect(ctx, core.InspectRequest{TaskID: "asked", WaitMS: 30000, WaitUntil: "review_required", Include: []string{"status"}})
	if err != nil || !strings.Contains(string(in.Sections["status"]), "review_required") {
		t.Fatalf("inspect %v %s", err, in.Sections["status"])
	}
	// Finalize's Authority crosses too: a read-only one is refused as the engine refuses it.
	d, _ = o.e.Get(ctx, "asked")
	rev := d.View.ReviewRevision
	_, err = c.Control(ctx, core.Finalize{TaskID: "asked", ReviewSummary: "x",
		ApprovedReviewCriteria: []string{"looks-right"}, ExpectedReviewRevision: &rev, ExpectedReviewTreeHash: d.View.ReviewTreeHash,
		Authority: core.Authority{Cwd: o.repo, Writable: false}})
	mustCode(t, err, core.CodeReadOnlySandbox)
}

// A dashboard counts as an attached supervisor for as long as it is connected; other roles
// do not.
func TestDashboardIsASupervisorWhileConnected(t *testing.T) {
	o := newOwner(t, nil)
	cli := o.dial(t, RoleCLI)
	if n := o.e.Supervisors(); n != 0 {
		t.Fatalf("a cli client counts as %d supervisors", n)
	}
	dash, err := Dial(ctxT(t, 10*time.Second), o.dir, RoleDashboard)
	if err != nil {
		t.Fatal(err)
	}
	if n := o.e.Supervisors(); n != 1 {
		t.Fatalf("supervisors %d with a dashboard attached", n)
	}
	// A suspended dashboard stops counting, and counts again once it is back; saying the same
	// twice changes nothing.
	for _, step := range []struct {
		on   bool
		want int
	}{{false, 0}, {false, 0}, {true, 1}, {true, 1}} {
		if err := dash.Supervise(ctxT(t, 10*time.Second), step.on); err != nil {
			t.Fatal(err)
		}
		if n := o.e.Supervisors(); n != step.want {
			t.Fatalf("supervisors %d after Supervise(%v)", n, step.on)
		}
	}
	if err := cli.Supervise(ctxT(t, 10*time.Second), true); core.AsError(err).Code != core.CodeInvalidRequest {
		t.Fatalf("a cli client supervising: %v", err)
	}
	dash.Supervise(ctxT(t, 10*time.Second), false)
	dash.Close()
	if n := o.e.Supervisors(); n != 0 {
		t.Fatalf("supervisors %d after a suspended dashboard left", n)
	}
	dash, err = Dial(ctxT(t, 10*time.Second), o.dir, RoleDashboard)
	if err != nil {
		t.Fatal(err)
	}
	dash.Close()
	eventually(t, 10*time.Second, "the dashboard's detach", func() bool { return o.e.Supervisors() == 0 })
	if _, err := cli.List(ctxT(t, 10*time.Second), core.ListFilter{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Dial(ctxT(t, 10*time.Second), o.dir, "admin"); err == nil {
		t.Fatal("an unknown role was accepted")
	}
}

// A client of another protocol version is refused with reasonix_incompatible.
func TestProtocolMismatchIsRefused(t *testing.T) {
	o := newOwner(t, nil)
	_, err := dial(ctxT(t, 10*time.Second), o.dir, RoleCLI, Protocol+1)
	ce := mustCode(t, err, core.CodeReasonixIncompatible)
	if !strings.Contains(ce.Message, fmt.Sprintf("protocol %d", Protocol+1)) || !strings.Contains(ce.Message, fmt.Sprintf("speaks %d", Protocol)) {
		t.Fatalf("message %q", ce.Message)
	}
}

// When the owner closes, Done closes, subscriptions end and every call says the owner exited,
// retryably.
func TestOwnerGone(t *testing.T) {
	o := newOwner(t, nil)
	c := o.dial(t, RoleDashboard)
	ctx := ctxT(t, 30*time.Second)
	sub, err := c.Subscribe(ctx, core.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := o.srv.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("Done did not close after the owner closed")
	}
	for range sub.C {
	}
	mustCode(t, sub.Err(), core.CodeReasonixUnavailable)
	_, err = c.List(ctx, core.ListFilter{})
	ce := mustCode(t, err, core.CodeReasonixUnavailable)
	if !ce.Retryable || !strings.Contains(ce.Message, "pid ") || !strings.Contains(ce.Message, "exited") {
		t.Fatalf("%+v", ce)
	}
	if _, err := os.Lstat(SocketPath(o.dir)); !os.IsNotExist(err) {
		t.Fatalf("socket left behind: %v", err)
	}
	_, err = Dial(ctx, o.dir, RoleCLI)
	mustCode(t, err, core.CodeReasonixUnavailable)
	if n := o.e.Supervisors(); n != 0 {
		t.Fatalf("supervisors %d after the server closed", n)
	}
}

// A task subscriber that stops reading is dropped while the engine keeps appending at full
// speed; when it reads again, its subscription resumes from the last seq it saw, with no gap
// and no duplicate.
func TestStoppedSubscriberIsDroppedAndResumes(t *testing.T) {
	o := newOwner(t, turn(writeResult(), acptest.Step{Flood: 3000, FloodKind: "tool_call"}), func(s *Server) {
		s.streamBuffer, s.batchEvents, s.frameTimeout, s.tune = 16, 4, 200*time.Millisecond, smallSendBuffer
	})
	c := o.dial(t, RoleCLI)
	c.subBuffer = 16 // with the server's limits, a stalled reader holds well under 100 events
	ctx := ctxT(t, 120*time.Second)
	bg := 0
	req := o.request("flood")
	req.WaitTimeoutSeconds = &bg
	if _, err := c.Delegate(ctx, req); err != nil {
		t.Fatal(err)
	}
	sub, err := c.Subscribe(ctx, core.SubscribeOptions{TaskID: "flood", FromSeq: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Nobody reads sub.C while the worker floods: the engine must still reach review.
	in, err := o.e.Inspect(ctx, core.InspectRequest{TaskID: "flood", WaitMS: 30000, WaitUntil: "review_required", Include: []string{"status"}})
	if err != nil || !strings.Contains(string(in.Sections["status"]), "review_required") {
		t.Fatalf("the engine did not reach review while a subscriber stalled: %v %s", err, in.Sections["status"])
	}
	d, _ := o.e.Get(ctx, "flood")
	// The relay notices the stall on its own time (a full queue, or a write past its deadline).
	eventually(t, 30*time.Second, fmt.Sprintf("the stalled subscriber to be dropped (%d events)", d.LastSeq), func() bool {
		return o.srv.dropped.Load() > 0
	})
	for seq := uint64(1); seq <= d.LastSeq; seq++ {
		if ev := receive(t, sub); ev.Seq != seq {
			t.Fatalf("seq %d after resuming, want %d", ev.Seq, seq)
		}
	}
}

// A subscription to all tasks cannot resume (it is live only): when it falls behind it ends
// with the engine's overflow error, as in process, and the dashboard reloads.
func TestLaggingAllTasksSubscriptionEndsTyped(t *testing.T) {
	o := newOwner(t, turn(writeResult(), acptest.Step{Flood: 3000, FloodKind: "tool_call"}), func(s *Server) {
		s.streamBuffer, s.batchEvents, s.frameTimeout, s.tune = 16, 4, 0, smallSendBuffer
	})
	c := o.dial(t, RoleDashboard)
	c.subBuffer = 16
	ctx := ctxT(t, 120*time.Second)
	sub, err := c.Subscribe(ctx, core.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bg := 0
	req := o.request("flood")
	req.WaitTimeoutSeconds = &bg
	if _, err := c.Delegate(ctx, req); err != nil {
		t.Fatal(err)
	}
	if _, err := o.e.Inspect(ctx, core.InspectRequest{TaskID: "flood", WaitMS: 30000, WaitUntil: "review_required"}); err != nil {
		t.Fatal(err)
	}
	for range sub.C {
	}
	err = sub.Err()
	if !errors.Is(err, store.ErrSubscriberOverflow) {
		t.Fatalf("err %v", err)
	}
	mustCode(t, err, core.CodeReasonixUnavailable)
	if c.gone() != nil {
		t.Fatal("a lagging subscription took the client down")
	}
}

// smallSendBuffer makes the kernel hold only a few KiB for a peer that does not read, so that
// a stalled client fills the server's queue after a few hundred events, not a few thousand.
func smallSendBuffer(c net.Conn) {
	c.(*net.UnixConn).SetWriteBuffer(4096)
}

// normalJSON is v's JSON after a round trip through any, so that a struct and the map it
// decodes into compare equal.
func normalJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var a any
	json.Unmarshal(b, &a)
	b, _ = json.Marshal(a)
	return string(b)
}

var _ = context.Background

// An owner whose connections break without a goodbye (as when it is killed) is noticed the
// same way: Done closes, a task subscription cannot resume and says the owner exited, and so
// does every call.
func TestOwnerConnectionsBreak(t *testing.T) {
	o := newOwner(t, nil)
	c := o.dial(t, RoleCLI)
	ctx := ctxT(t, 60*time.Second)
	if _, err := c.Delegate(ctx, o.request("t1")); err != nil {
		t.Fatal(err)
	}
	sub, err := c.Subscribe(ctx, core.SubscribeOptions{TaskID: "t1", FromSeq: 1})
	if err != nil {
		t.Fatal(err)
	}
	receive(t, sub)
	o.srv.srv.Close() // no Shutdown: listeners and connections close at once
	select {
	case <-c.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("Done did not close when the owner's connections broke")
	}
	for range sub.C {
	}
	ce := mustCode(t, sub.Err(), core.CodeReasonixUnavailable)
	if !strings.Contains(ce.Message, "exited") {
		t.Fatalf("subscription end %+v", ce)
	}
	_, err = c.Get(ctx, "t1")
	mustCode(t, err, core.CodeReasonixUnavailable)
}

// A dashboard that has left is never counted again, whatever Supervise says after.
func TestSupervisionClosedStaysClosed(t *testing.T) {
	var attached, detached int
	attach := func() func() { attached++; return func() { detached++ } }
	sv := &supervision{}
	sv.turn(true, attach)
	sv.turn(true, attach)
	sv.close()
	sv.turn(true, attach)
	if attached != 1 || detached != 1 {
		t.Fatalf("attached %d, detached %d", attached, detached)
	}
}

// A dashboard that goes quiet (stopped, wedged) stops counting as a supervisor once the
// owner's presence timeout passes, and counts again when it speaks; one that keeps saying it
// is there stays counted.
func TestQuietDashboardStopsCounting(t *testing.T) {
	o := newOwner(t, nil, func(s *Server) { s.presence = 300 * time.Millisecond })
	quiet := o.dial(t, RoleDashboard) // says nothing for 10 s
	if n := o.e.Supervisors(); n != 1 {
		t.Fatalf("supervisors %d", n)
	}
	eventually(t, 10*time.Second, "the quiet dashboard to stop counting", func() bool { return o.e.Supervisors() == 0 })
	if err := quiet.Supervise(ctxT(t, 10*time.Second), true); err != nil {
		t.Fatal(err)
	}
	if n := o.e.Supervisors(); n != 1 {
		t.Fatalf("supervisors %d after the dashboard spoke again", n)
	}
	quiet.Close()
	eventually(t, 10*time.Second, "the dashboard's detach", func() bool { return o.e.Supervisors() == 0 })

	// Saying it every 50 ms against a two-second timeout: a fortyfold margin for a busy machine.
	defer func(d time.Duration) { presenceEvery = d }(presenceEvery)
	presenceEvery = 50 * time.Millisecond
	kept := newOwner(t, nil, func(s *Server) { s.presence = 2 * time.Second })
	kept.dial(t, RoleDashboard)
	deadline := time.Now().Add(3 * time.Second) // longer than a presence timeout
	for time.Now().Before(deadline) {
		if n := kept.e.Supervisors(); n != 1 {
			t.Fatalf("a dashboard that keeps saying it is there stopped counting (%d)", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

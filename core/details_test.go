package core_test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"reasonixctl/core"
)

// detailSample is one value of a detail type, with the code it goes with and the map literal its
// call sites built before details were typed: the wire form it must keep.
type detailSample struct {
	code   core.Code
	detail core.Detail
	old    map[string]any
}

func detailSamples() map[string]detailSample {
	exit, baseExit := 1, 2
	issues := []core.Issue{{Path: "verification.0.argv", Message: "must not be empty"}, {Path: "b<c>", Message: "x & y"}}
	view := core.TaskView{TaskID: "t1", State: core.StateVerifying, Phase: "checks", ReviewRevision: 2, UpdatedAt: "2026-01-02T03:04:05.000Z"}
	collision := &core.SourceCollision{Checkpoint: "before_commit", BaseCommit: "abc", DirtyPaths: []string{"a"}, CommittedPaths: []string{},
		OverlappingPaths: []string{"a"}, DetectedAt: "2026-01-02T03:04:05.000Z"}
	refusals := []core.PathRefusal{{Path: ".env", Reason: core.RefusedSensitive, Hint: core.RefusalHint(core.RefusedSensitive)},
		{Path: "k.pem", Reason: core.RefusedSecret, Detail: "a private key", Hint: core.RefusalHint(core.RefusedSecret)}}
	failures := []core.CheckFailure{{ID: "TestA", Message: "boom", PreExisting: false}, {ID: "TestB", PreExisting: true}}
	oldFailures := []map[string]any{{"id": "TestA", "message": "boom", "pre_existing": false}, {"id": "TestB", "pre_existing": true}}
	options := []core.InteractionOption{{OptionID: "o1", Name: "Allow", Kind: core.OptionAllowOnce}, {OptionID: "o2", Name: "Deny"}}
	return map[string]detailSample{
		"issue_list": {core.CodeInvalidRequest, &core.IssueList{Issues: issues}, map[string]any{"issues": issues}},
		"unfinished_draft": {core.CodeInvalidContract,
			&core.UnfinishedDraft{Reason: "unfinished_draft", Placeholders: []string{"objective"}, Issues: issues},
			map[string]any{"reason": "unfinished_draft", "placeholders": []string{"objective"}, "issues": issues}},
		"stale_snapshot": {core.CodeInvalidRequest,
			&core.StaleSnapshot{Checkpoint: "finalize_start", Expected: core.ReviewSnapshot{ReviewRevision: 2, ReviewTreeHash: "aa"},
				Current: core.ReviewSnapshot{ReviewRevision: 3, ReviewTreeHash: "bb"}},
			map[string]any{"checkpoint": "finalize_start",
				"expected": map[string]any{"review_revision": 2, "review_tree_hash": "aa"},
				"current":  map[string]any{"review_revision": 3, "review_tree_hash": "bb"}}},
		"approval_mismatch": {core.CodeInvalidRequest,
			&core.ApprovalMismatch{Required: []string{"a1", "a2"}, Missing: []string{"a2"}, Foreign: []string{}},
			map[string]any{"required": []string{"a1", "a2"}, "missing": []string{"a2"}, "foreign": []string{}}},
		"unacknowledged_risks": {core.CodeInvalidRequest,
			&core.UnacknowledgedRisks{Reason: "unacknowledged_risks", Unacknowledged: []string{"r1"}, Risks: []string{"r1", "r2"}},
			map[string]any{"reason": "unacknowledged_risks", "unacknowledged": []string{"r1"}, "risks": []string{"r1", "r2"}}},
		"finalize_running": {core.CodeInvalidState,
			&core.FinalizeRunning{Task: view, TimedOut: true, Recoverable: true},
			map[string]any{"task": view, "timed_out": true, "recoverable": true}},
		"failed_check": {core.CodeVerificationFailed,
			&core.FailedCheck{Verification: "unit", Argv: []string{"go", "test"}, ExitCode: &exit, LogPath: "/l/unit.log", LogTail: "FAIL <x>",
				BaselineComparison: &core.BaselineComparison{PreExistingFailure: false,
					Baseline: &core.BaselineSummary{Status: "failed", Base: "abc", ExitCode: &baseExit, LogTail: "FAIL", LogPath: "/l/base.log"},
					Failures: failures, FailureFormat: core.FailureFormatOutput}},
			map[string]any{"verification": "unit", "argv": []string{"go", "test"}, "exit_code": &exit, "timed_out": false,
				"log_path": "/l/unit.log", "log_tail": "FAIL <x>", "pre_existing_failure": false,
				"baseline": map[string]any{"status": "failed", "base": "abc", "exit_code": baseExit, "log_tail": "FAIL", "log_path": "/l/base.log"},
				"failures": oldFailures, "failure_format": core.FailureFormatOutput}},
		"check_not_run": {core.CodeVerificationFailed, &core.CheckNotRun{Verification: "unit"}, map[string]any{"verification": "unit"}},
		"not_excusable": {core.CodeVerificationFailed,
			&core.NotExcusable{Reason: "not_excusable", Verification: "unit", LogPath: "/l/unit.log",
				BaselineComparison: core.BaselineComparison{Baseline: &core.BaselineSummary{Status: "unknown", Base: "abc", Reason: "timed out"},
					Failures: []core.CheckFailure{}, FailureFormat: ""}},
			map[string]any{"reason": "not_excusable", "verification": "unit", "pre_existing_failure": false,
				"baseline": map[string]any{"status": "unknown", "base": "abc", "reason": "timed out"}, "log_path": "/l/unit.log",
				"failures": []map[string]any{}, "failure_format": ""}},
		"unknown_check":     {core.CodeInvalidRequest, &core.UnknownCheck{Verification: "lint"}, map[string]any{"verification": "lint"}},
		"failed_assertion":  {core.CodeVerificationFailed, &core.FailedAssertion{FileAssertion: "f1", Path: "out.txt"}, map[string]any{"file_assertion": "f1", "path": "out.txt"}},
		"unproved_criteria": {core.CodeVerificationFailed, &core.UnprovedCriteria{Unproved: []string{"c1"}}, map[string]any{"unproved": []string{"c1"}}},
		"whitespace_errors": {core.CodeVerificationFailed, &core.WhitespaceErrors{Whitespace: []string{"a.go:3"}}, map[string]any{"whitespace": []string{"a.go:3"}}},
		"git_refusal": {core.CodeOwnershipAmbiguous, &core.GitRefusal{Reason: "tree_moved", Paths: []string{"a", "b"}},
			map[string]any{"reason": "tree_moved", "paths": []string{"a", "b"}}},
		"unscannable": {core.CodeSecretDetected, &core.Unscannable{Reason: core.RefusedUnscannable}, map[string]any{"reason": core.RefusedUnscannable}},
		"change_refused": {core.CodeSecretDetected,
			&core.ChangeRefused{Reason: core.RefusedSecret, Paths: []string{".env", "k.pem"}, Refusals: refusals},
			map[string]any{"reason": core.RefusedSecret, "paths": []string{".env", "k.pem"}, "refusals": refusals}},
		"worktree_tampered": {core.CodeOwnershipAmbiguous,
			&core.WorktreeTampered{Reason: "worktree_tampered", Path: ".git", Checkpoint: "before_commit", Found: "the worktree's .git is gone"},
			map[string]any{"reason": "worktree_tampered", "path": ".git", "checkpoint": "before_commit", "found": "the worktree's .git is gone"}},
		"collision_pause": {core.CodeOwnershipAmbiguous, &core.CollisionPause{SourceCollision: collision}, map[string]any{"source_collision": collision}},
		"paths_in_the_way": {core.CodeOwnershipAmbiguous,
			&core.PathsInTheWay{Checkout: "/repo", Reason: "paths_in_the_way", Paths: []string{"a", "l"}, Ignored: []string{"a"}, Untracked: []string{}, Symlinks: []string{"l"}},
			map[string]any{"checkout": "/repo", "reason": "paths_in_the_way", "paths": []string{"a", "l"},
				"ignored": []string{"a"}, "untracked": []string{}, "symlinks": []string{"l"}}},
		"checkout_busy": {core.CodeInvalidState, &core.CheckoutBusy{Checkout: "/repo", Reason: "operation_in_progress", Operation: "rebase"},
			map[string]any{"checkout": "/repo", "reason": "operation_in_progress", "operation": "rebase"}},
		"checkout_ref":     {core.CodeInvalidState, &core.CheckoutRef{Checkout: "/repo"}, map[string]any{"checkout": "/repo"}},
		"branch_elsewhere": {core.CodeInvalidState, &core.BranchElsewhere{Checkout: "/repo", Elsewhere: "/wt"}, map[string]any{"checkout": "/repo", "elsewhere": "/wt"}},
		"cherry_pick_failed": {core.CodeInvalidState, &core.CherryPickFailed{Checkout: "/repo", Restored: false, Head: "abc", Differs: []string{"a: modified"}},
			map[string]any{"checkout": "/repo", "restored": false, "head": "abc", "differs": []string{"a: modified"}}},
		"apply_conflicts":      {core.CodeInvalidState, &core.ApplyConflicts{Conflicts: []string{"a"}, Head: "abc"}, map[string]any{"conflicts": []string{"a"}, "head": "abc"}},
		"rebase_conflicts":     {core.CodeInvalidState, &core.RebaseConflicts{Conflicts: []string{"a"}}, map[string]any{"conflicts": []string{"a"}}},
		"head_ref":             {core.CodeInvalidState, &core.HeadRef{Head: "abc"}, map[string]any{"head": "abc"}},
		"worktree_moved":       {core.CodeInvalidState, &core.WorktreeMoved{ReviewTreeHash: "aa", WorktreeTreeHash: "bb"}, map[string]any{"review_tree_hash": "aa", "worktree_tree_hash": "bb"}},
		"wrong_state":          {core.CodeInvalidState, &core.WrongState{State: core.StateRunning}, map[string]any{"state": core.StateRunning}},
		"wrong_phase":          {core.CodeInvalidState, &core.WrongPhase{State: core.StatePaused, Phase: ""}, map[string]any{"state": core.StatePaused, "phase": ""}},
		"forbidden_transition": {core.CodeInvalidState, &core.ForbiddenTransition{State: core.StateCompleted, Target: core.StateRunning}, map[string]any{"state": core.StateCompleted, "target": core.StateRunning}},
		"repair_limit":         {core.CodeRepairLimitReached, &core.RepairLimit{RepairRounds: 3}, map[string]any{"repair_rounds": 3}},
		"stale_pause": {core.CodeInvalidRequest, &core.StalePause{PauseRevision: 1, PauseReasonHash: "h", Reason: "why", Phase: "source_collision"},
			map[string]any{"pause_revision": 1, "pause_reason_hash": "h", "reason": "why", "phase": "source_collision"}},
		"wait_aborted":     {core.CodeInvalidState, &core.WaitAborted{Aborted: true}, map[string]any{"aborted": true}},
		"conflicting_task": {core.CodeTaskConflict, &core.ConflictingTask{Field: "contract"}, map[string]any{"field": "contract"}},
		"unoffered_option": {core.CodeInvalidRequest, &core.UnofferedOption{Options: options}, map[string]any{"options": options}},
		"unknown_worker": {core.CodeInvalidRequest, &core.UnknownWorker{Worker: "cursor", Known: core.WorkerNames},
			map[string]any{"worker": "cursor", "known": core.WorkerNames}},
		"record_version":      {core.CodeInvalidState, &core.RecordVersion{Version: 9}, map[string]any{"version": 9}},
		"task_ref":            {core.CodeInternalError, &core.TaskRef{TaskID: "t1"}, map[string]any{"task_id": "t1"}},
		"wrong_storage":       {core.CodeInvalidState, &core.WrongStorage{Storage: core.StorageArchived}, map[string]any{"storage": core.StorageArchived}},
		"worktree_ref":        {core.CodeInvalidState, &core.WorktreeRef{Worktree: "/wt"}, map[string]any{"worktree": "/wt"}},
		"worktree_head":       {core.CodeInvalidState, &core.WorktreeHead{Worktree: "/wt", Head: "a", Expected: "b"}, map[string]any{"worktree": "/wt", "head": "a", "expected": "b"}},
		"worktree_dirty":      {core.CodeInvalidState, &core.WorktreeDirty{Worktree: "/wt", Paths: []string{"x"}}, map[string]any{"worktree": "/wt", "paths": []string{"x"}}},
		"path_ref":            {core.CodeInvalidRequest, &core.PathRef{Path: "a.go"}, map[string]any{"path": "a.go"}},
		"dir_ref":             {core.CodeInvalidRequest, &core.DirRef{Dir: "rel"}, map[string]any{"dir": "rel"}},
		"inside_worktree":     {core.CodeInvalidRequest, &core.InsideWorktree{Cwd: "/wt"}, map[string]any{"cwd": "/wt"}},
		"inside_checkout":     {core.CodeInvalidRequest, &core.InsideCheckout{Reason: "inside_checkout", Path: "/repo/c.json"}, map[string]any{"reason": "inside_checkout", "path": "/repo/c.json"}},
		"unknown_id":          {core.CodeInvalidRequest, &core.UnknownID{ID: "g1"}, map[string]any{"id": "g1"}},
		"bad_cursor":          {core.CodeInvalidRequest, &core.BadCursor{Cursor: "stale"}, map[string]any{"cursor": "stale"}},
		"page_range":          {core.CodeInvalidRequest, &core.PageRange{Offset: -1, Limit: 0}, map[string]any{"offset": int64(-1), "limit": int64(0)}},
		"message_too_long":    {core.CodeInvalidRequest, &core.MessageTooLong{Bytes: 70000}, map[string]any{"bytes": 70000}},
		"log_gone":            {core.CodeInvalidState, &core.LogGone{LogPath: "/l/unit.log"}, map[string]any{"log_path": "/l/unit.log"}},
		"policy_refusal":      {core.CodeInvalidRequest, &core.PolicyRefusal{Code: "git_mutation"}, map[string]any{"code": "git_mutation"}},
		"owner_gone":          {core.CodeReasonixUnavailable, &core.OwnerGone{PID: 42, Dir: "/state"}, map[string]any{"pid": 42, "dir": "/state"}},
		"owner_shutting_down": {core.CodeReasonixUnavailable, &core.OwnerShuttingDown{PID: 42}, map[string]any{"pid": 42}},
		"subscriber_lagged":   {core.CodeReasonixUnavailable, &core.SubscriberLagged{Reason: "subscriber_lagged"}, map[string]any{"reason": "subscriber_lagged"}},
		"server_shutdown":     {core.CodeReasonixUnavailable, &core.ServerShutdown{Shutdown: true}, map[string]any{"shutdown": true}},
		"read_only_sandbox": {core.CodeReadOnlySandbox, &core.ReadOnlySandbox{SandboxCwd: "/repo", PermissionProfile: "read-only"},
			map[string]any{"sandbox_cwd": "/repo", "permission_profile": "read-only"}},
	}
}

// Every detail type has a sample, and every one is registered under its kind.
func TestEveryDetailHasASample(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "details.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "kind" || fn.Recv == nil {
			continue
		}
		ret := fn.Body.List[0].(*ast.ReturnStmt).Results[0].(*ast.BasicLit).Value
		kinds = append(kinds, strings.Trim(ret, `"`))
	}
	samples := detailSamples()
	if len(kinds) != len(samples) {
		t.Errorf("%d detail types, %d samples", len(kinds), len(samples))
	}
	for _, k := range kinds {
		d := core.NewDetail(k)
		if d == nil {
			t.Errorf("kind %s is not registered", k)
			continue
		}
		s, ok := samples[k]
		if !ok {
			t.Errorf("no sample of %s", k)
			continue
		}
		if reflect.TypeOf(s.detail) != reflect.TypeOf(d) || core.DetailKind(s.detail) != k {
			t.Errorf("the sample of %s is a %T of kind %s", k, s.detail, core.DetailKind(s.detail))
		}
	}
}

// Each detail decodes from its JSON into the same Go value, alone and inside an Error carried
// as the owner's socket carries it.
func TestDetailsRoundTrip(t *testing.T) {
	for kind, s := range detailSamples() {
		t.Run(kind, func(t *testing.T) {
			b, err := json.Marshal(s.detail)
			if err != nil {
				t.Fatal(err)
			}
			back := core.NewDetail(kind)
			if err := json.Unmarshal(b, back); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, s.detail) {
				t.Fatalf("JSON %s decodes to %#v, want %#v", b, back, s.detail)
			}

			e := core.Errorf(s.code, s.detail, "sample %s", kind)
			wire, err := json.Marshal(core.SocketError{Err: e})
			if err != nil {
				t.Fatal(err)
			}
			var got core.SocketError
			if err := json.Unmarshal(wire, &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Err.Detail, s.detail) || !reflect.DeepEqual(got.Err.Details, e.Details) {
				t.Fatalf("over the socket %s became %#v", wire, got.Err.Detail)
			}
			if got.Err.Code != e.Code || got.Err.Message != e.Message || got.Err.Retryable != e.Retryable || got.Err.NextAction != e.NextAction {
				t.Fatalf("over the socket %+v became %+v", e, got.Err)
			}
			again, err := json.Marshal(got)
			if err != nil || string(again) != string(wire) {
				t.Fatalf("the socket form changed over a round trip:\n%s\n%s", wire, again)
			}
		})
	}
}

// The wire form of each detail is what its map literal serialised to: the same keys, values
// and omissions, byte for byte, in the Error's JSON as in the details alone. The socket form
// adds detail_kind and nothing else.
func TestDetailsWireFormIsTheOldMap(t *testing.T) {
	for kind, s := range detailSamples() {
		t.Run(kind, func(t *testing.T) {
			e := core.Errorf(s.code, s.detail, "sample")
			got, err := json.Marshal(e.Details)
			if err != nil {
				t.Fatal(err)
			}
			want, err := json.Marshal(s.old)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Fatalf("details\n%s\nwant\n%s", got, want)
			}
			old := *e
			old.Details, old.Detail = s.old, nil
			got, _ = json.Marshal(e)
			want, _ = json.Marshal(&old)
			if string(got) != string(want) {
				t.Fatalf("error\n%s\nwant\n%s", got, want)
			}
			socket, _ := json.Marshal(core.SocketError{Err: e})
			if w := strings.TrimSuffix(string(want), "}") + `,"detail_kind":"` + kind + `"}`; string(socket) != w {
				t.Fatalf("socket form\n%s\nwant\n%s", socket, w)
			}
		})
	}
}

// A golden sample, written out: a stale finalize as Codex has always seen it.
func TestStaleSnapshotGolden(t *testing.T) {
	e := core.Errorf(core.CodeInvalidRequest, detailSamples()["stale_snapshot"].detail, "stale")
	b, _ := json.Marshal(e)
	const want = `{"code":"invalid_request","message":"stale","retryable":false,"next_action":"fix_request",` +
		`"details":{"checkpoint":"finalize_start","current":{"review_revision":3,"review_tree_hash":"bb"},"expected":{"review_revision":2,"review_tree_hash":"aa"}}}`
	if string(b) != want {
		t.Fatalf("got\n%s\nwant\n%s", b, want)
	}
}

// No detail, or a typed nil, is no details at all; a detail whose every key is left out when
// empty is none either, as the empty map was.
func TestNoDetails(t *testing.T) {
	for _, d := range []core.Detail{nil, (*core.GitRefusal)(nil), &core.GitRefusal{}} {
		e := core.Errorf(core.CodeInternalError, d, "x")
		b, _ := json.Marshal(e)
		if e.Detail != nil || e.Details != nil || strings.Contains(string(b), "details") {
			t.Fatalf("%#v: %s", d, b)
		}
	}
	var back core.SocketError
	if err := json.Unmarshal([]byte(`{"code":"internal_error","message":"x","retryable":false,"next_action":"none"}`), &back); err != nil || back.Err.Detail != nil || back.Err.Details != nil {
		t.Fatalf("%+v %v", back.Err, err)
	}
}

// An owner of another version may send a kind this build does not know: the details arrive as
// plain JSON values, untyped, rather than not at all.
func TestUnknownDetailKind(t *testing.T) {
	var back core.SocketError
	raw := `{"code":"invalid_state","message":"x","retryable":false,"next_action":"inspect_task","details":{"gauge":3},"detail_kind":"from_the_future"}`
	if err := json.Unmarshal([]byte(raw), &back); err != nil {
		t.Fatal(err)
	}
	if back.Err.Detail != nil || !reflect.DeepEqual(back.Err.Details, map[string]any{"gauge": 3.0}) {
		t.Fatalf("%+v", back.Err)
	}
}

// The typed reads front ends use follow from the detail's type.
func TestTypedReads(t *testing.T) {
	s := detailSamples()
	issues := core.Errorf(core.CodeInvalidContract, s["unfinished_draft"].detail, "x")
	if len(issues.Issues()) != 2 || !slices.Equal(issues.OtherDetails(), []string{"placeholders", "reason"}) {
		t.Fatalf("issues %v, other %v", issues.Issues(), issues.OtherDetails())
	}
	stale := core.Errorf(core.CodeInvalidRequest, s["stale_snapshot"].detail, "x")
	if stale.Stale() == nil || stale.Stale().Current.ReviewRevision != 3 || len(stale.OtherDetails()) != 0 {
		t.Fatalf("stale %v, other %v", stale.Stale(), stale.OtherDetails())
	}
	check := core.Errorf(core.CodeVerificationFailed, s["failed_check"].detail, "x")
	if c := check.Check(); c == nil || c.Verification != "unit" ||
		!slices.Equal(check.OtherDetails(), []string{"baseline", "failure_format", "failures", "pre_existing_failure"}) {
		t.Fatalf("check %v, other %v", c, check.OtherDetails())
	}
	refused := core.Errorf(core.CodeVerificationFailed, s["not_excusable"].detail, "x")
	if c := refused.Check(); c == nil || c.Verification != "unit" || c.LogPath != "/l/unit.log" ||
		!slices.Equal(refused.OtherDetails(), []string{"baseline", "failure_format", "failures", "pre_existing_failure", "reason"}) {
		t.Fatalf("check %v, other %v", c, refused.OtherDetails())
	}
	other := core.Errorf(core.CodeInvalidState, s["worktree_head"].detail, "x")
	if other.Issues() != nil || other.Stale() != nil || other.Check() != nil || !slices.Equal(other.OtherDetails(), []string{"expected", "head", "worktree"}) {
		t.Fatalf("%v", other.OtherDetails())
	}
}

// Details are built typed: no call outside tests passes Errorf a map, and none writes an
// Error's Details, which only core derives from the detail (mcp replaces them whole with
// their redacted copy).
func TestNoMapDetailsOutsideTests(t *testing.T) {
	root := ".."
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				name := ""
				switch fn := n.Fun.(type) {
				case *ast.SelectorExpr:
					name = fn.Sel.Name
				case *ast.Ident:
					name = fn.Name
				}
				if name == "Errorf" && len(n.Args) >= 2 && containsMap(n.Args[1]) {
					t.Errorf("%s: Errorf is passed a map as details", fset.Position(n.Pos()))
				}
			case *ast.AssignStmt:
				for _, l := range n.Lhs {
					if ix, ok := l.(*ast.IndexExpr); ok && isDetails(ix.X) {
						t.Errorf("%s: an Error's details are written key by key", fset.Position(n.Pos()))
					}
					if isDetails(l) && rel != filepath.Join("core", "errors.go") && rel != filepath.Join("mcp", "envelope.go") {
						t.Errorf("%s: an Error's details are set outside core", fset.Position(n.Pos()))
					}
				}
			case *ast.KeyValueExpr:
				if k, ok := n.Key.(*ast.Ident); ok && k.Name == "Details" && rel != filepath.Join("core", "errors.go") {
					t.Errorf("%s: an Error is built with details outside Errorf", fset.Position(n.Pos()))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func containsMap(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if _, ok := n.(*ast.MapType); ok {
			found = true
		}
		return !found
	})
	return found
}

func isDetails(e ast.Expr) bool {
	s, ok := e.(*ast.SelectorExpr)
	return ok && s.Sel.Name == "Details"
}

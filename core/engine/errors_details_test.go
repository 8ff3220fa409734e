package engine

import (
	"reasonixctl/core"

	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

// The typed details of the errors finalize makes survive the owner's socket form, and the JSON
// they serialise to stays what it was.
func TestTypedDetailsSurviveJSON(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "unit.log")
	if err := os.WriteFile(logPath, []byte("FAIL: TestX\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	exit := 1
	issues := []core.Issue{{Path: "review_summary", Message: "must not be blank"}}
	for name, tc := range map[string]struct {
		err   *core.Error
		check func(t *testing.T, e *core.Error)
	}{
		"issues": {core.InvalidRequest("input validation failed", issues), func(t *testing.T, e *core.Error) {
			if !reflect.DeepEqual(e.Issues(), issues) || !slices.Equal(e.OtherDetails(), []string{}) {
				t.Fatalf("issues %+v, other %v", e.Issues(), e.OtherDetails())
			}
		}},
		"stale": {core.Errorf(core.CodeInvalidRequest, &core.StaleSnapshot{
			Checkpoint: "finalize_start",
			Expected:   core.ReviewSnapshot{ReviewRevision: 2, ReviewTreeHash: "aa"},
			Current:    core.ReviewSnapshot{ReviewRevision: 3, ReviewTreeHash: "bb"},
		}, "stale"), func(t *testing.T, e *core.Error) {
			want := core.StaleSnapshot{Checkpoint: "finalize_start", Expected: core.ReviewSnapshot{ReviewRevision: 2, ReviewTreeHash: "aa"}, Current: core.ReviewSnapshot{ReviewRevision: 3, ReviewTreeHash: "bb"}}
			if e.Stale() == nil || *e.Stale() != want || len(e.OtherDetails()) != 0 {
				t.Fatalf("stale %+v, other %v", e.Stale(), e.OtherDetails())
			}
		}},
		"failed check": {core.AsError(verificationFailure(core.VerificationResult{ID: "unit", Argv: []string{"go", "test"}, ExitCode: &exit, LogPath: logPath}, nil)),
			func(t *testing.T, e *core.Error) {
				c := e.Check()
				if c == nil || c.Verification != "unit" || !slices.Equal(c.Argv, []string{"go", "test"}) || c.ExitCode == nil || *c.ExitCode != 1 ||
					c.LogPath != logPath || c.LogTail != "FAIL: TestX" || len(e.OtherDetails()) != 0 {
					t.Fatalf("check %+v, other %v", c, e.OtherDetails())
				}
			}},
	} {
		t.Run(name, func(t *testing.T) {
			tc.check(t, tc.err)
			b, err := json.Marshal(core.SocketError{Err: tc.err})
			if err != nil {
				t.Fatal(err)
			}
			var back core.SocketError
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			tc.check(t, back.Err)
			again, err := json.Marshal(back)
			if err != nil || string(again) != string(b) {
				t.Fatalf("the JSON changed over a round trip:\n%s\n%s", b, again)
			}
		})
	}
	// Details no typed field covers stay as they are.
	e := core.Errorf(core.CodeInvalidState, &core.WorktreeHead{Worktree: "/w", Expected: "abc"}, "moved")
	if e.Stale() != nil || e.Check() != nil || e.Issues() != nil || !slices.Equal(e.OtherDetails(), []string{"expected", "head", "worktree"}) {
		t.Fatalf("%+v %v", e, e.OtherDetails())
	}
}

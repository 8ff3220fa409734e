package dialog

import (
	"strings"
	"testing"

	"reasonixctl/core"
	"reasonixctl/tui/words"
)

// The form sends finalize only once the summary is written and every review criterion ticked,
// asking once about files not marked reviewed; the request carries the snapshot it was made
// against, and the commit message only when it was changed.
func TestFinalizeSubmitsWhatWasReviewed(t *testing.T) {
	d := NewFinalize(reviewDetail(), nil, []string{"internal/auth/login_test.go", "internal/auth/login.go"})
	requireView(t, d, 80, "Finalize login-fix", "review revision 2", "ac_audit", "ac_readable",
		"Not marked reviewed (2): internal/auth/login.go, internal/auth/login_test.go")
	requireNotInView(t, d, 80, "ac_tests") // proved by a check, not approved here
	press(d, "enter")
	requireView(t, d, 80, "write a review summary first")
	typeText(d, "Checked the empty-user path.")
	press(d, "tab", "space", "enter")
	requireView(t, d, 80, "tick every review criterion you checked (1 left)")
	press(d, "tab", "space", "enter")
	requireView(t, d, 80, "2 file(s) not marked reviewed: internal/auth/login.go, internal/auth/login_test.go. Submit again")
	res := press(d, "ctrl+s")
	req, ok := res.Control.(core.Finalize)
	if !ok || !res.Close || req.ReviewSummary != "Checked the empty-user path." ||
		strings.Join(req.ApprovedReviewCriteria, ",") != "ac_audit,ac_readable" || *req.ExpectedReviewRevision != 2 ||
		req.ExpectedReviewTreeHash != treeHash || req.Authority.Cwd != "/src/app" || req.CommitMessage != "" {
		t.Fatalf("finalize: %+v", res)
	}

	d = NewFinalize(reviewDetail(), nil, nil)
	typeText(d, "ok, read it all")
	press(d, "tab", "space", "tab", "space", "tab")
	if !d.Capturing() {
		t.Fatal("the commit message does not take text")
	}
	typeText(d, " (reviewed)")
	if res := press(d, "enter"); res.Control == nil || !strings.HasSuffix(res.Control.(core.Finalize).CommitMessage, " (reviewed)") {
		t.Fatalf("an edited commit message: %+v", res)
	}
}

// The review's risks must be acknowledged with the key the form names; the request lists them.
// Without risks the key says there is nothing to acknowledge.
func TestFinalizeAsksToAcknowledgeRisks(t *testing.T) {
	risk := core.SourceRisk{ID: "trojan_source:internal/auth/access.go", Path: "internal/auth/access.go", Lines: []int{4, 7}}
	d := NewFinalize(reviewDetail(), []Risk{{SourceRisk: risk, Lines: "hidden or look-alike characters: 4, 7"}}, nil)
	requireView(t, d, 80, "⚠ Risks: the change holds what a plain reading may miss", "[ ] ctrl+o: I read these lines",
		"internal/auth/access.go: hidden or look-alike characters: 4, 7", "ctrl+o acknowledge risks")
	typeText(d, "Read access.go line by line.")
	press(d, "tab", "space", "tab", "space", "ctrl+s")
	requireView(t, d, 80, "read them in the diff, then ctrl+o acknowledges them")
	press(d, "ctrl+o")
	requireView(t, d, 80, "[x] ctrl+o: I read these lines")
	res := press(d, "ctrl+s")
	if res.Control == nil || strings.Join(res.Control.(core.Finalize).AcknowledgedRisks, ",") != risk.ID {
		t.Fatalf("finalize: %+v", res)
	}

	plain := NewFinalize(reviewDetail(), nil, nil)
	requireNotInView(t, plain, 80, "ctrl+o")
	press(plain, "ctrl+o")
	requireView(t, plain, 80, "nothing to acknowledge")
	if plain.Summary() != "" {
		t.Fatalf("ctrl+o reached the summary: %q", plain.Summary())
	}
}

// A check that fails before the change too, with the same failures, is excused with ctrl+x and
// a reason; one with new failures is named and cannot be.
func TestFinalizeExcusesPreExistingFailures(t *testing.T) {
	detail := reviewDetail()
	one := 1
	detail.Verification = []core.VerificationResult{
		{ID: "unit", ExitCode: &one, FailureFormat: core.FailureFormatGo,
			Failures: []core.CheckFailure{{ID: "auth TestLogin", PreExisting: true}},
			Baseline: &core.BaselineResult{Status: core.BaselineFailed, Base: treeHash, ExitCode: &one, FailureFormat: core.FailureFormatGo,
				Failures: []core.CheckFailure{{ID: "auth TestLogin"}}}},
		{ID: "vet", ExitCode: &one, FailureFormat: core.FailureFormatGo,
			Failures: []core.CheckFailure{{ID: "auth TestOld", PreExisting: true}, {ID: "auth: undefined: x"}},
			Baseline: &core.BaselineResult{Status: core.BaselineFailed, Base: treeHash, ExitCode: &one, FailureFormat: core.FailureFormatGo,
				Failures: []core.CheckFailure{{ID: "auth TestOld"}}}},
	}
	d := NewFinalize(detail, nil, nil)
	requireView(t, d, 100, "Failing before the change too, with the same failures: unit. ctrl+x excuses it",
		"but with new failures the change causes: vet", "ctrl+x excuse pre-existing failures")
	typeText(d, "Checked it.")
	press(d, "tab", "space", "tab", "space", "ctrl+x")
	requireView(t, d, 100, "Excusing unit", "› reason")
	press(d, "ctrl+s")
	requireView(t, d, 100, "say why the pre-existing failure may stand")
	typeText(d, "fails on main since the auth rewrite")
	res := press(d, "ctrl+s")
	if res.Control == nil || len(res.Control.(core.Finalize).ExcusedChecks) != 1 ||
		res.Control.(core.Finalize).ExcusedChecks[0] != (core.ExcusedCheck{ID: "unit", Reason: "fails on main since the auth rewrite"}) {
		t.Fatalf("finalize: %+v", res)
	}

	none := NewFinalize(reviewDetail(), nil, nil)
	press(none, "ctrl+x")
	requireView(t, none, 80, "nothing to excuse")
}

// The preview line follows what the root sets, in the warning colour's words when it does not
// apply cleanly.
func TestFinalizeShowsThePreviewItIsGiven(t *testing.T) {
	d := NewFinalize(reviewDetail(), nil, nil)
	requireNotInView(t, d, 80, "HEAD")
	d.SetPreview(words.Preview{Pending: true})
	requireView(t, d, 80, "checking whether it applies to your checkout…")
	d.SetPreview(words.Preview{Of: &core.CherryPickPreview{Source: "/src/app", Head: "3f2c1a9e8d7c", Clean: false, Conflicts: []string{"a.go"}}})
	requireView(t, d, 80, "the change conflicts with /src/app HEAD 3f2c1a9e8d in a.go")
}

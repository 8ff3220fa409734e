package dialog

import (
	"fmt"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"reasonixctl/core"
	"reasonixctl/tui/intent"
	"reasonixctl/tui/words"
)

// TestGolden pins the dialogs as the stack frames them, at 80×24 and 120×40. Regenerate with
// `go test ./tui/dialog -run TestGolden -update` and read the diff before committing.
func TestGolden(t *testing.T) {
	one := 1
	scenes := []struct {
		name string
		open func() Dialog
	}{
		{"prompt_permission", func() Dialog {
			return NewPrompt("docs-typo", permissionIA("ia-1"), "I will run the linter before the tests.", 1)
		}},
		{"prompt_foreign_command", func() Dialog {
			// A foreign worker's command that is not plain argv: shown as sent, with why it is asked.
			ia := permissionIA("ia-2")
			ia.Request.Argv, ia.Request.Title = nil, "Run the tests (quietly)"
			ia.Request.Subject = "go test ./... 2>&1 | tail -5"
			ia.Request.Code = "not_plain_argv"
			ia.Request.Reason = "The command is not plain argv (pipe: the command is a pipeline (|)), so the policy cannot check it and a person is asked."
			return NewPrompt("docs-typo", ia, "", 0)
		}},
		{"prompt_question_selected", func() Dialog {
			d := NewPrompt("login-fix", questionIA("q-1"), "I will read the login code first, then add the check and a test.", 0)
			press(d, "2")
			return d
		}},
		{"prompt_typed_answer", func() Dialog {
			d := NewPrompt("login-fix", questionIA("q-1"), "", 0)
			press(d, "t")
			typeText(d, "ErrBlankUser")
			return d
		}},
		{"finalize", func() Dialog {
			d := NewFinalize(reviewDetail(), nil, []string{"internal/auth/login.go", "internal/auth/login_test.go"})
			d.SetPreview(words.Preview{Of: &core.CherryPickPreview{Source: "/src/app", Head: "3f2c1a9e8d7c6b5a", Clean: true}})
			typeText(d, "Checked the empty-user path.")
			press(d, "tab", "space")
			return d
		}},
		{"finalize_risks_excuse", func() Dialog {
			detail := reviewDetail()
			detail.Verification = []core.VerificationResult{{ID: "unit", ExitCode: &one, FailureFormat: core.FailureFormatGo,
				Failures: []core.CheckFailure{{ID: "auth TestLogin", PreExisting: true}},
				Baseline: &core.BaselineResult{Status: core.BaselineFailed, Base: treeHash, ExitCode: &one, FailureFormat: core.FailureFormatGo,
					Failures: []core.CheckFailure{{ID: "auth TestLogin"}}}}}
			risk := core.SourceRisk{ID: "trojan_source:internal/auth/access.go", Path: "internal/auth/access.go", Lines: []int{4, 7}}
			d := NewFinalize(detail, []Risk{{SourceRisk: risk, Lines: "hidden or look-alike characters: 4, 7"}}, nil)
			d.SetPreview(words.Preview{Of: &core.CherryPickPreview{Source: "/src/app", Head: "3f2c1a9e8d7c6b5a", Conflicts: []string{"internal/auth/login.go"}}})
			typeText(d, "Read access.go line by line.")
			press(d, "ctrl+x", "ctrl+s")
			return d
		}},
		{"new_task", func() Dialog {
			return NewNewTask(intent.NewTask{RepoDir: "/src/app", Lane: core.LaneFast}, nil)
		}},
		{"new_task_worker", func() Dialog {
			// The default comes from CODEX_REASONIX_WORKER; the focus is on the worker.
			d := NewNewTask(intent.NewTask{RepoDir: "/src/app", Lane: core.LaneDeep, Worker: "gemini"}, nil)
			press(d, "tab", "tab", "tab", "tab", "right")
			return d
		}},
		{"new_task_drafted", func() Dialog {
			d := NewNewTask(intent.NewTask{RepoDir: "/src/app", TaskID: "login-fix"}, map[string]core.State{"login-fix": core.StateReviewRequired})
			d.Drafted(core.DraftResult{Path: "/state/drafts/app-0123456789ab/contract.json",
				Draft:   core.ContractDraft{Checks: []core.DraftCheck{{ID: "go-vet", Argv: []string{"go", "vet", "./..."}}}, Placeholders: []string{"objective"}},
				Checked: []core.BaseCheck{{ID: "go-test", Baseline: &core.BaselineResult{Status: core.BaselineFailed, ExitCode: &one, LogTail: "--- FAIL: TestParse"}}},
			}, nil)
			press(d, "ctrl+s")
			return d
		}},
	}
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		for _, sc := range scenes {
			t.Run(fmt.Sprintf("%s_%dx%d", sc.name, size[0], size[1]), func(t *testing.T) {
				var s Stack
				s.Push(sc.open(), epoch)
				golden.RequireEqual(t, []byte(s.View(theme, keyMap, size[0], size[1]-3, epoch.Add(GraceQuiet))+"\n"))
			})
		}
	}
}

package main

import (
	"strings"
	"testing"
	"time"

	"reasonixctl/core"
)

func TestPermissionSettings(t *testing.T) {
	for _, tc := range []struct {
		permissions, timeout string
		askUser              bool
		want                 time.Duration
		err                  string
	}{
		{"", "", false, core.DefaultAskTimeout, ""},
		{"auto", "", false, core.DefaultAskTimeout, ""},
		{"ask", "30", true, 30 * time.Second, ""},
		{"Ask", "", false, 0, `CODEX_REASONIX_PERMISSIONS="Ask": use auto`},
		{"ask", "0", false, 0, `CODEX_REASONIX_ASK_TIMEOUT="0": use a whole number of seconds from 1 to 86400`},
		{"ask", "1.5", false, 0, `CODEX_REASONIX_ASK_TIMEOUT="1.5"`},
		{"ask", "-3", false, 0, `CODEX_REASONIX_ASK_TIMEOUT="-3"`},
		{"ask", "86401", false, 0, `CODEX_REASONIX_ASK_TIMEOUT="86401"`},
	} {
		t.Setenv("CODEX_REASONIX_PERMISSIONS", tc.permissions)
		t.Setenv("CODEX_REASONIX_ASK_TIMEOUT", tc.timeout)
		s, err := readSettings()
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q/%q: error %v, want %q", tc.permissions, tc.timeout, err, tc.err)
			}
			continue
		}
		if err != nil || s.askUser != tc.askUser || s.askTimeout != tc.want {
			t.Errorf("%q/%q: %v %v %v", tc.permissions, tc.timeout, s.askUser, s.askTimeout, err)
		}
		if got := s.engineConfig(t.TempDir(), "mcp", nil, core.PermissionAutomatic).AskTimeout; got != tc.want {
			t.Errorf("%q/%q: engine AskTimeout %v", tc.permissions, tc.timeout, got)
		}
	}
}

// CODEX_REASONIX_WORKER chooses the worker of tasks that name none; a name reasonixctl does not
// know stops the start with a message that lists the ones it does.
func TestWorkerSetting(t *testing.T) {
	for _, tc := range []struct{ env, want, err string }{
		{"", core.WorkerReasonix, ""},
		{"codex", "codex", ""},
		{" gemini ", "gemini", ""},
		{"Claude", "", `CODEX_REASONIX_WORKER "Claude" is not a worker reasonixctl knows; use one of reasonix, claude, codex, gemini, qwen, opencode`},
		{"cursor", "", `CODEX_REASONIX_WORKER "cursor"`},
	} {
		t.Setenv(core.WorkerEnv, tc.env)
		s, err := readSettings()
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.env, err, tc.err)
			}
			continue
		}
		if err != nil || s.engineConfig(t.TempDir(), "mcp", nil, core.PermissionAutomatic).DefaultWorker != tc.want {
			t.Errorf("%q: worker %q (%v), want %q", tc.env, s.worker, err, tc.want)
		}
	}
}

package mcp

import (
	"encoding/json"
	"testing"

	"reasonixctl/core"
)

func TestParseAuthority(t *testing.T) {
	special := func(kind, access string) string {
		return `{"path":{"type":"special","value":{"kind":"` + kind + `"}},"access":"` + access + `"}`
	}
	path := func(p, access string) string {
		return `{"path":{"type":"path","path":"` + p + `"},"access":"` + access + `"}`
	}
	managed := func(network string, entries ...string) string {
		list := "["
		for i, e := range entries {
			if i > 0 {
				list += ","
			}
			list += e
		}
		return `{"type":"managed","network":"` + network + `","file_system":{"type":"restricted","entries":` + list + `]}}`
	}
	meta := func(cwd, profile string) string {
		return `{"codex/sandbox-state-meta":{"sandboxCwd":"` + cwd + `","permissionProfile":` + profile + `}}`
	}
	workspace := managed("restricted", special("root", "read"), special("project_roots", "write"))

	for _, tc := range []struct {
		name    string
		meta    string
		network bool
		want    core.Authority
		code    core.Code
	}{
		{"workspace write, file URI", meta("file:///home/me/repo", workspace), false,
			core.Authority{Cwd: "/home/me/repo", Writable: true}, ""},
		{"workspace write, plain path cleaned", meta("/home/me/repo/./sub/", workspace), false,
			core.Authority{Cwd: "/home/me/repo/sub", Writable: true}, ""},
		{"percent-encoded file URI", meta("file:///home/me/my%20repo", workspace), false,
			core.Authority{Cwd: "/home/me/my repo", Writable: true}, ""},
		{"localhost file URI", meta("file://localhost/r", workspace), false, core.Authority{Cwd: "/r", Writable: true}, ""},
		{"current_working_directory write", meta("/r", managed("restricted", special("current_working_directory", "write"))), false,
			core.Authority{Cwd: "/r", Writable: true}, ""},
		{"path entry containing cwd", meta("/r/a/b", managed("restricted", path("/r", "write"))), false,
			core.Authority{Cwd: "/r/a/b", Writable: true}, ""},
		{"path entry as file URI", meta("/r/a", managed("restricted", path("file:///r", "write"))), false,
			core.Authority{Cwd: "/r/a", Writable: true}, ""},
		{"root write", meta("/r", managed("restricted", special("root", "write"))), false,
			core.Authority{Cwd: "/r", Writable: true}, ""},
		{"unrestricted managed", meta("/r", `{"type":"managed","network":"restricted","file_system":{"type":"unrestricted"}}`), false,
			core.Authority{Cwd: "/r", Writable: true}, ""},
		{"disabled profile: writable, never network", meta("/r", `{"type":"disabled"}`), true,
			core.Authority{Cwd: "/r", Writable: true}, ""},
		{"external profile with network", meta("/r", `{"type":"external","network":"enabled"}`), true,
			core.Authority{Cwd: "/r", Writable: true, Network: true}, ""},
		{"managed network needs config consent", meta("/r", managed("enabled", special("project_roots", "write"))), false,
			core.Authority{Cwd: "/r", Writable: true}, ""},
		{"managed network with consent", meta("/r", managed("enabled", special("project_roots", "write"))), true,
			core.Authority{Cwd: "/r", Writable: true, Network: true}, ""},

		{"read only", meta("/r", managed("restricted", special("root", "read"))), false, core.Authority{}, core.CodeReadOnlySandbox},
		{"no entries", meta("/r", managed("restricted")), false, core.Authority{}, core.CodeReadOnlySandbox},
		{"write elsewhere", meta("/r", managed("restricted", path("/other", "write"), path("/rr", "write"))), false,
			core.Authority{}, core.CodeReadOnlySandbox},
		{"more specific deny wins", meta("/r/a", managed("restricted", path("/r", "write"), path("/r/a", "none"))), false,
			core.Authority{}, core.CodeReadOnlySandbox},
		{"deny wins a tie", meta("/r", managed("restricted", special("project_roots", "write"), special("current_working_directory", "none"))), false,
			core.Authority{}, core.CodeReadOnlySandbox},
		{"more specific write wins", meta("/r/a", managed("restricted", path("/r", "none"), path("/r/a", "write"))), false,
			core.Authority{Cwd: "/r/a", Writable: true}, ""},
		{"project_roots subpath elsewhere", meta("/r", managed("restricted",
			`{"path":{"type":"special","value":{"kind":"project_roots","subpath":"docs"}},"access":"write"}`)), false,
			core.Authority{}, core.CodeReadOnlySandbox},
		{"glob entries never grant", meta("/r", managed("restricted", `{"path":{"type":"glob_pattern","pattern":"**"},"access":"write"}`)), false,
			core.Authority{}, core.CodeReadOnlySandbox},
		{"unknown access fails closed", meta("/r", managed("restricted", special("project_roots", "admin"))), false,
			core.Authority{}, core.CodeReadOnlySandbox},

		{"no meta at all", `{}`, false, core.Authority{}, core.CodeMissingSandboxMetadata},
		{"null meta", `{"codex/sandbox-state-meta":null}`, false, core.Authority{}, core.CodeMissingSandboxMetadata},
		{"meta not an object", `{"codex/sandbox-state-meta":"yes"}`, false, core.Authority{}, core.CodeMissingSandboxMetadata},
		{"no cwd", `{"codex/sandbox-state-meta":{"permissionProfile":{"type":"disabled"}}}`, false, core.Authority{}, core.CodeMissingSandboxMetadata},
		{"relative cwd", meta("repo", workspace), false, core.Authority{}, core.CodeMissingSandboxMetadata},
		{"remote file URI", meta("file://host/r", workspace), false, core.Authority{}, core.CodeMissingSandboxMetadata},
		{"windows cwd", meta(`C:\\\\repo`, workspace), false, core.Authority{}, core.CodeMissingSandboxMetadata},
		{"no profile", `{"codex/sandbox-state-meta":{"sandboxCwd":"/r"}}`, false, core.Authority{}, core.CodeMissingSandboxMetadata},
		{"legacy sandboxPolicy only", `{"codex/sandbox-state-meta":{"sandboxCwd":"/r","sandboxPolicy":{"type":"workspace-write"}}}`, false,
			core.Authority{}, core.CodeMissingSandboxMetadata},
		{"unknown profile type", meta("/r", `{"type":"mystery"}`), false, core.Authority{}, core.CodeMissingSandboxMetadata},
		{"managed without file_system", meta("/r", `{"type":"managed","network":"enabled"}`), false, core.Authority{}, core.CodeMissingSandboxMetadata},
		{"unknown file_system type", meta("/r", `{"type":"managed","file_system":{"type":"odd"}}`), false, core.Authority{}, core.CodeMissingSandboxMetadata},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m map[string]any
			if err := json.Unmarshal([]byte(tc.meta), &m); err != nil {
				t.Fatalf("bad test meta %s: %v", tc.meta, err)
			}
			got, err := ParseAuthority(m, tc.network)
			if tc.code != "" {
				if err == nil {
					t.Fatalf("want %s, got authority %+v", tc.code, got)
				}
				if e := core.AsError(err); e.Code != tc.code {
					t.Fatalf("want %s, got %v", tc.code, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

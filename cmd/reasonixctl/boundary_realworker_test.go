package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"reasonixctl/acp/acptest/mockllm"
	"reasonixctl/core"
)

// probeScript is a program the worker writes and then runs as a command the contract allows. It
// tries every way out of the worker's sandbox the issue measured and records each outcome in
// probe-report.json in its working directory and on stdout (the command's output): "ok" with what
// it got when the attempt worked, "error" when it failed. It finds the owner the way an attacker
// would, among the processes it can see.
func probeScript(state, repo, outside string) string {
	return fmt.Sprintf(`import json, os, socket

STATE = %q
REPO = %q
OUTSIDE = %q
r = {"cwd": os.getcwd()}


def attempt(name, fn):
    try:
        r[name] = {"ok": fn()}
    except Exception as e:
        r[name] = {"error": repr(e)}


def find_owner():
    for p in sorted(os.listdir("/proc")):
        if p.isdigit():
            try:
                with open("/proc/%%s/cmdline" %% p, "rb") as f:
                    argv = f.read().split(b"\0")
            except OSError:
                continue
            if argv and argv[0].endswith(b"reasonixctl") and b"serve" in argv:
                return int(p)
    raise LookupError("no reasonixctl serve among the processes this command sees")


def owner_socket():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(os.path.join(STATE, "owner.sock"))
    s.sendall(b"POST /reasonixctl.remote.v1.Owner/List HTTP/1.1\r\nHost: owner\r\nContent-Type: application/json\r\n"
              b"Content-Length: 2\r\nConnection: close\r\n\r\n{}")
    data = s.recv(300)
    s.close()
    return data.decode(errors="replace").split("\r\n")[0] if data else "connected"


def write(path):
    with open(path, "w") as f:
        f.write("written by a command of the worker\n")
    return path


def owner_root(path):
    return "/proc/%%d/root%%s" %% (find_owner(), path)


def tty():
    # Which terminal opened: Reasonix gives the shell it runs commands in a pseudo-terminal of its
    # own, which is no way out; only the owner's terminal is.
    fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    st = os.fstat(fd)
    os.close(fd)
    return {"dev": st.st_dev, "ino": st.st_ino}


def owner_terminal():
    # The owner's terminal, through a descriptor of the owner's that holds it.
    owner = find_owner()
    for fd in sorted(os.listdir("/proc/%%d/fd" %% owner)):
        path = "/proc/%%d/fd/%%s" %% (owner, fd)
        if os.readlink(path).startswith("/dev/pts/"):
            f = os.open(path, os.O_RDWR | os.O_NOCTTY)
            st = os.fstat(f)
            os.close(f)
            return {"dev": st.st_dev, "ino": st.st_ino}
    raise LookupError("the owner holds no terminal")


attempt("owner_pid", find_owner)
attempt("state_listing", lambda: sorted(os.listdir(STATE)))
attempt("owner_socket", owner_socket)
attempt("write_outside", lambda: write(os.path.join(OUTSIDE, "direct-marker")))
attempt("write_checkout", lambda: write(os.path.join(REPO, "direct-marker")))
attempt("write_outside_via_proc1_root", lambda: write("/proc/1/root" + os.path.join(OUTSIDE, "proc1-marker")))
attempt("write_outside_via_owner_root", lambda: write(owner_root(os.path.join(OUTSIDE, "owner-root-marker"))))
attempt("write_checkout_via_owner_root", lambda: write(owner_root(os.path.join(REPO, "owner-root-marker"))))
attempt("state_listing_via_proc1_root", lambda: sorted(os.listdir("/proc/1/root" + STATE)))
attempt("owner_etc_hostname", lambda: open(owner_root("/etc/hostname")).read().strip())
attempt("tty", tty)
attempt("owner_terminal", owner_terminal)
with open("probe-report.json", "w") as f:
    json.dump(r, f)
print(json.dumps(r))
`, state, repo, outside)
}

// ownerTerminal reports whether the terminal the probe opened, by the device and inode it
// reported, is the owner's: the same terminal seen from any namespace has the same inode on the
// same devpts instance, and a sandbox's own /dev/pts is another instance.
func ownerTerminal(t *testing.T, owner *os.File, opened json.RawMessage) bool {
	t.Helper()
	var id struct{ Dev, Ino uint64 }
	if err := json.Unmarshal(opened, &id); err != nil {
		return true // not what the probe reports for a terminal: count it
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(owner.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	return id.Dev == st.Dev && id.Ino == st.Ino
}

// The real Reasonix 1.38.11 runs a command the contract allows in its own bubblewrap, which binds
// / read-only and shares the host's pid namespace: the command lists the state directory (the
// worktrees live under it), connects to owner.sock and talks to the owner, writes outside the
// worktree through /proc/<pid>/root (as root), reads the host's files through the owner's root and
// opens the owner's terminal. The safe outcome: every one of these fails, no file appears outside
// the worktree and nothing reaches the terminal.
func TestBoundaryWorkerCommandsCannotReachTheOwner(t *testing.T) {
	bin := realReasonixBin(t)
	state, repo := sbStateDir(t), testRepo(t)
	outside := sbStateDir(t) // a folder outside the worktree, like the state directory
	if err := os.Chmod(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	_, slave := openPTY(t)
	srv, err := mockllm.Start(mockllm.Script{Scenarios: []mockllm.Scenario{{
		Match: "sbprobe",
		Steps: []mockllm.Step{
			{Text: "Writing the probe.", ToolCalls: []mockllm.ToolCall{{Name: "write_file", Arguments: map[string]any{"path": "probe.py", "content": probeScript(state, repo, outside)}}}},
			{ToolCalls: []mockllm.ToolCall{{Name: "bash", Arguments: map[string]any{"command": "python3 probe.py"}}}},
			{Text: "Ran the probe."},
		},
	}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	env, err := mockllm.WriteReasonixHome(t.TempDir(), srv.BaseURL())
	if err != nil {
		t.Fatal(err)
	}
	env = append(env, "REASONIX_BIN="+bin, "CODEX_REASONIX_MODEL=mock/mock-model", "CODEX_REASONIX_ENV_ALLOWLIST=MOCK_API_KEY")
	o := startSBOwner(t, state, repo, slave, env...)

	c := sbContract("Run sbprobe and report", []string{"probe.py", "probe-report.json"}, [][]string{{"test", "-f", "probe.py"}})
	c["allowed_commands"] = []any{map[string]any{"id": "probe", "argv": []string{"python3", "probe.py"}}}
	res := o.delegate("sb-probe", c, "")
	if res.State == core.StateRunning || res.Worktree == "" {
		t.Fatalf("the task did not finish its turn: %s %s: %s", res.State, res.Phase, res.Reason)
	}
	raw, err := os.ReadFile(filepath.Join(res.Worktree, "probe-report.json"))
	if err != nil {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		evs, _ := o.c.Journal(ctx, "sb-probe")
		for _, ev := range evs {
			t.Logf("%d %s %.600s", ev.Seq, ev.Type, ev.Data)
		}
		t.Fatalf("the allowed command python3 probe.py left no report (%v): it did not run (task %s %s: %s)", err, res.State, res.Phase, res.Reason)
	}
	var report map[string]json.RawMessage
	if err := json.Unmarshal(raw, &report); err != nil {
		t.Fatalf("report: %v\n%s", err, raw)
	}
	var cwd string
	json.Unmarshal(report["cwd"], &cwd)
	var reached []string
	names := make([]string, 0, len(report))
	for name := range report {
		if name != "cwd" && name != "owner_pid" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		var a struct {
			OK    json.RawMessage `json:"ok"`
			Error string          `json:"error"`
		}
		if err := json.Unmarshal(report[name], &a); err != nil {
			t.Fatalf("report %s: %v", name, err)
		}
		if a.OK == nil {
			continue
		}
		if (name == "tty" || name == "owner_terminal") && !ownerTerminal(t, slave, a.OK) {
			continue // the worker's own pseudo-terminal, in its sandbox's /dev/pts
		}
		if strings.HasPrefix(name, "state_listing") {
			// Folders leading to the command's own working directory are no leak.
			listing, _ := json.Marshal(map[string]any{"cwd": cwd, "entries": json.RawMessage(a.OK)})
			if stateVisible(t, state, listing) == "" {
				continue
			}
		}
		reached = append(reached, fmt.Sprintf("%s: %s", name, a.OK))
	}
	for _, p := range []string{
		filepath.Join(outside, "direct-marker"), filepath.Join(outside, "proc1-marker"), filepath.Join(outside, "owner-root-marker"),
		filepath.Join(repo, "direct-marker"), filepath.Join(repo, "owner-root-marker"),
	} {
		if _, err := os.Stat(p); err == nil {
			reached = append(reached, "wrote "+p+" on the host")
		}
	}
	if typed := typedInto(t, slave); len(typed) > 0 {
		reached = append(reached, fmt.Sprintf("put %q into the owner's terminal", typed))
	}
	if len(reached) > 0 {
		t.Fatalf("ATTACK SUCCEEDED: python3 probe.py, a command the contract allows, run by the real Reasonix for task sb-probe (owner pid %d, found by the probe as %s):\n  - %s\nthe probe's whole report:\n%s",
			o.pid, report["owner_pid"], strings.Join(reached, "\n  - "), raw)
	}
}

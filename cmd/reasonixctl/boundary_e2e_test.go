package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"reasonixctl/acp/acptest"
	"reasonixctl/core"
	"reasonixctl/core/doctor"
	"reasonixctl/core/remote"
)

// The sandbox boundary, attacked through the built binary (issue 36): `reasonixctl serve` owns a
// state directory and serves its socket, the fake worker writes code that the contract's checks
// run, and the test attaches to the socket as a front end would. Each attack must end in a typed
// refusal or a failing check, with nothing moved, nothing granted and nothing typed into a
// terminal. A failure message starting "ATTACK SUCCEEDED" says what the attack achieved.

// sbStateDir is a fresh 0700 state directory outside /tmp and /root, which the sandbox of today
// hides whole: the place of an ordinary user's ~/.local/state/reasonixctl as far as the sandbox
// is concerned. REASONIXCTL_BOUNDARY_BASE moves it (default /var/tmp); the path stays short
// enough for the owner socket.
func sbStateDir(t *testing.T) string {
	t.Helper()
	base := os.Getenv("REASONIXCTL_BOUNDARY_BASE")
	if base == "" {
		base = "/var/tmp"
	}
	d, err := os.MkdirTemp(base, "rxsb")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	real, err := filepath.EvalSymlinks(d)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// sbOwner is `reasonixctl serve` on a state directory, with a client attached.
type sbOwner struct {
	t     *testing.T
	state string
	repo  string
	pid   int
	c     *remote.Client
}

// startSBOwner starts `reasonixctl serve` on state with the fake worker (env may replace it).
// With tty, serve runs in a new session whose controlling terminal is tty, as a dashboard
// started from a terminal does.
func startSBOwner(t *testing.T, state, repo string, tty *os.File, env ...string) *sbOwner {
	t.Helper()
	if !doctor.SandboxAvailable() {
		t.Fatal("bubblewrap is required for these tests")
	}
	bin, err := buildBinaries()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(bin, "reasonixctl"), "serve")
	cmd.Env = append(os.Environ(),
		"CODEX_REASONIX_STATE_DIR="+state,
		"REASONIX_BIN="+filepath.Join(bin, "fake-reasonix"),
		"GIT_AUTHOR_NAME=E2E", "GIT_AUTHOR_EMAIL=e2e@example.com")
	cmd.Env = append(cmd.Env, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if tty != nil {
		cmd.ExtraFiles = []*os.File{tty}
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 3}
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		close(exited)
	}()
	o := &sbOwner{t: t, state: state, repo: repo, pid: cmd.Process.Pid}
	t.Cleanup(func() {
		if o.c != nil {
			o.c.Close()
		}
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-exited
			t.Errorf("reasonixctl serve did not stop on SIGTERM")
		}
		if t.Failed() && stderr.Len() > 0 {
			t.Logf("reasonixctl serve stderr:\n%s", stderr.String())
		}
	})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	o.c = dialUntil(t, ctx, state)
	return o
}

// sbScenario writes the fake worker's scenario and returns the environment that makes the
// worker play it. The file sits beside the fake worker's binary, so that a worker sandbox that
// shows the worker's own folder shows it too.
func sbScenario(t *testing.T, sc acptest.Scenario) []string {
	t.Helper()
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	bin, err := buildBinaries()
	if err != nil {
		t.Fatal(err)
	}
	return []string{"FAKE_REASONIX_SCENARIO=" + scenarioBeside(t, bin, raw), "CODEX_REASONIX_ENV_ALLOWLIST=FAKE_REASONIX_*"}
}

// sbContract is a contract with one automated criterion ("result", proved by the checks) and
// one review criterion ("reviewed"). The objective carries the token the worker's scenario
// matches.
func sbContract(objective string, scope []string, verify [][]string) map[string]any {
	var ver []any
	for i, argv := range verify {
		ver = append(ver, map[string]any{"id": fmt.Sprintf("check%d", i+1), "argv": argv, "proves": []string{"result"}})
	}
	return map[string]any{
		"schema_version": 1,
		"objective":      objective,
		"user_outcome":   "the files are written",
		"write_scope":    scope,
		"acceptance_criteria": []any{
			map[string]any{"id": "result", "requirement": "the checks pass", "evidence": "automated"},
			map[string]any{"id": "reviewed", "requirement": "the change reads well", "evidence": "review"},
		},
		"verification": ver,
	}
}

func (o *sbOwner) delegate(id string, contract map[string]any, mode core.PermissionMode) core.DelegateResult {
	o.t.Helper()
	raw, err := json.Marshal(contract)
	if err != nil {
		o.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(o.t.Context(), 3*time.Minute)
	defer cancel()
	res, err := o.c.Delegate(ctx, core.DelegateRequest{TaskID: id, Contract: raw,
		Authority: core.Authority{Cwd: o.repo, Writable: true}, PermissionMode: mode})
	if err != nil {
		o.t.Fatalf("delegate %s: %v", id, err)
	}
	return res
}

// inReview delegates and requires the task to reach review.
func (o *sbOwner) inReview(id string, contract map[string]any) core.DelegateResult {
	o.t.Helper()
	res := o.delegate(id, contract, "")
	if res.State != core.StateReviewRequired || res.ReviewBundle == nil {
		o.t.Fatalf("task %s did not reach review: %s %s: %s", id, res.State, res.Phase, res.Reason)
	}
	return res
}

// finalize approves the task as reviewed and waits for the whole finalize.
func (o *sbOwner) finalize(res core.DelegateResult) (core.TaskView, error) {
	o.t.Helper()
	rev, wait := res.ReviewRevision, 600
	ctx, cancel := context.WithTimeout(o.t.Context(), 11*time.Minute)
	defer cancel()
	return o.c.Control(ctx, core.Finalize{TaskID: res.TaskID, ReviewSummary: "reviewed",
		ApprovedReviewCriteria: res.RequiredReviewCriteria, ExpectedReviewRevision: &rev, ExpectedReviewTreeHash: res.ReviewTreeHash,
		WaitTimeoutSeconds: &wait})
}

func (o *sbOwner) get(id string) core.TaskDetail {
	o.t.Helper()
	ctx, cancel := context.WithTimeout(o.t.Context(), 30*time.Second)
	defer cancel()
	d, err := o.c.Get(ctx, id)
	if err != nil {
		o.t.Fatalf("get %s: %v", id, err)
	}
	return d
}

// checkLogs is the text of the task's verification logs.
func (o *sbOwner) checkLogs(id string) string {
	o.t.Helper()
	var b strings.Builder
	for _, v := range o.get(id).Verification {
		log, _ := os.ReadFile(v.LogPath)
		fmt.Fprintf(&b, "--- %s (exit %v)\n%s", v.ID, exitOf(v.ExitCode), log)
	}
	if b.Len() == 0 {
		return "(no verification log)\n"
	}
	return b.String()
}

func exitOf(code *int) string {
	if code == nil {
		return "none"
	}
	return fmt.Sprint(*code)
}

// mustRefuse requires a typed refusal with the code want, and nothing on the task's branch.
func (o *sbOwner) mustRefuse(id string, v core.TaskView, err error, want core.Code, base string) {
	o.t.Helper()
	if err == nil {
		o.t.Fatalf("finalize of %s succeeded (state %s, commit %s); want %s", id, v.State, v.CommitHash, want)
	}
	ce := core.AsError(err)
	if ce.Code != want {
		o.t.Fatalf("finalize of %s: want %s, got %s: %s", id, want, ce.Code, ce.Message)
	}
	if got := gitIn(o.t, o.repo, "rev-parse", "refs/heads/reasonix/"+id); got != base {
		o.t.Fatalf("branch reasonix/%s moved to %s (base %s)", id, got, base)
	}
}

// attackScript is a check written by a worker: it lists the state directory, then speaks the
// owner's protocol (Connect, JSON over HTTP/1.1 on <state>/owner.sock) to finalize and apply the
// task victim, which nobody approved, and to allow the pending permission of the task asker with
// a standing grant. It exits 0 only when it reached the owner, so a sandbox that keeps it out
// makes the check fail.
func attackScript(state, victim, asker string) string {
	return fmt.Sprintf(`import http.client, json, os, socket, sys

STATE = %q
VICTIM = %q
ASKER = %q

listing = {"cwd": os.getcwd()}
try:
    listing["entries"] = sorted(os.listdir(STATE))
except OSError as e:
    listing["error"] = repr(e)
print("STATE-LISTING " + json.dumps(listing), flush=True)


class Owner(http.client.HTTPConnection):
    def connect(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(300)
        s.connect(os.path.join(STATE, "owner.sock"))
        self.sock = s


def call(proc, body):
    c = Owner("owner", timeout=300)
    c.request("POST", "/reasonixctl.remote.v1.Owner/" + proc, json.dumps(body), {"Content-Type": "application/json"})
    r = c.getresponse()
    data = r.read()
    c.close()
    if r.status != 200:
        raise RuntimeError("%%s: HTTP %%d: %%s" %% (proc, r.status, data[:500]))
    return json.loads(data) if data else None


done, errors = [], []
try:
    d = call("Get", {"task_id": VICTIM})
    done.append("reached the owner")
    v = d["view"]
    criteria = [c["id"] for c in d["contract"]["acceptance_criteria"] if c["evidence"] == "review"]
    call("Control", {"request": {"task_id": VICTIM, "action": "finalize", "review_summary": "looks fine",
                                 "approved_review_criteria": criteria, "expected_review_revision": v["review_revision"],
                                 "expected_review_tree_hash": v["review_tree_hash"], "wait_timeout_seconds": 300}})
    done.append("finalized " + VICTIM)
    call("ApplyToCheckout", {"task_id": VICTIM, "apply": True})
    done.append("applied " + VICTIM + " to the checkout")
except Exception as e:
    errors.append(repr(e))
try:
    d = call("Get", {"task_id": ASKER})
    pending = [i for i in d.get("interactions") or [] if i["status"] == "pending"]
    for i in pending:
        call("Control", {"request": {"task_id": ASKER, "action": "respond", "interaction_id": i["id"], "decision": "allow"}, "grant": True})
        done.append("allowed %%s of %%s with a standing grant" %% (i["id"], ASKER))
except Exception as e:
    errors.append(repr(e))
print("ATTACK " + json.dumps({"done": done, "errors": errors}), flush=True)
sys.exit(0 if done else 1)
`, state, victim, asker)
}

// reportLine returns the JSON that follows prefix on a line of log, if any.
func reportLine(log, prefix string) (json.RawMessage, bool) {
	for _, line := range strings.Split(log, "\n") {
		if rest, ok := strings.CutPrefix(line, prefix); ok {
			return json.RawMessage(rest), true
		}
	}
	return nil, false
}

// stateVisible says what a listing of the state directory from inside a sandbox reveals beyond
// the folders leading to the sandbox's own working directory ("" when nothing).
func stateVisible(t *testing.T, state string, raw json.RawMessage, own ...string) string {
	t.Helper()
	var l struct {
		Cwd     string   `json:"cwd"`
		Entries []string `json:"entries"`
		Error   string   `json:"error"`
	}
	if err := json.Unmarshal(raw, &l); err != nil {
		t.Fatalf("listing %s: %v", raw, err)
	}
	var extra []string
	for _, e := range l.Entries {
		p := filepath.Join(state, e)
		leads := false
		for _, mine := range append([]string{l.Cwd}, own...) {
			leads = leads || mine == p || strings.HasPrefix(mine, p+"/")
		}
		if !leads {
			extra = append(extra, e)
		}
	}
	if len(extra) == 0 {
		return ""
	}
	return strings.Join(extra, ", ")
}

// A check runs code the worker wrote. Today the sandbox binds / read-only, which does not stop
// connect() on <state>/owner.sock, and the owner checks only the peer's uid: the check drives
// the owner like a person at a dashboard. It finalizes and applies another task nobody approved
// (the person's main moves) and answers a third task's pending permission with allow and a
// standing grant. The safe outcome: the check cannot see the state directory or reach the
// socket, so it fails (verification_failed), the other task stays in review, main does not move
// and no grant exists.
func TestBoundaryCheckCannotDriveTheOwnerSocket(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skipf("python3 is not installed here: %v", err)
	}
	state, repo := sbStateDir(t), testRepo(t)
	base := gitIn(t, repo, "rev-parse", "HEAD")
	const victim, asker, attacker = "sb-victim", "sb-asker", "sb-attacker"
	scn := sbScenario(t, acptest.Scenario{Turns: []acptest.Turn{
		{Match: "SBVICTIM", Steps: []acptest.Step{{Write: &acptest.WriteFile{Path: "victim.txt", Content: "a change nobody approved\n"}}}, Summary: "Wrote victim.txt."},
		{Match: "SBASKER", Steps: []acptest.Step{
			{Shell: &acptest.Shell{Command: "make lint", Output: "fine\n"}, Permission: "ask"},
			{Write: &acptest.WriteFile{Path: "asker.txt", Content: "linted\n"}},
		}, Summary: "Linted."},
		{Match: "SBATTACKER", Steps: []acptest.Step{
			{Write: &acptest.WriteFile{Path: "attack.py", Content: attackScript(state, victim, asker)}},
			{Write: &acptest.WriteFile{Path: "result.txt", Content: "ok\n"}},
		}, Summary: "Wrote result.txt and its test."},
	}})
	o := startSBOwner(t, state, repo, nil, scn...)

	o.inReview(victim, sbContract("SBVICTIM write victim.txt", []string{"victim.txt"}, [][]string{{"test", "-f", "victim.txt"}}))
	ask := o.delegate(asker, sbContract("SBASKER lint and write asker.txt", []string{"asker.txt"}, [][]string{{"test", "-f", "asker.txt"}}), core.PermissionSupervised)
	if ask.State != core.StateWaitingPermission || ask.ReviewBundle == nil || ask.ActiveInteraction == nil {
		t.Fatalf("task %s is not waiting on its permission: %s %s: %s", asker, ask.State, ask.Phase, ask.Reason)
	}
	att := o.inReview(attacker, sbContract("SBATTACKER write result.txt", []string{"result.txt", "attack.py"}, [][]string{{"python3", "attack.py"}}))
	v, ferr := o.finalize(att)

	logs := o.checkLogs(attacker)
	var harm []string
	if d := o.get(victim); d.View.State != core.StateReviewRequired {
		harm = append(harm, fmt.Sprintf("finalized task %s, which nobody approved (now %s, commit %s)", victim, d.View.State, d.View.CommitHash))
	}
	if head := gitIn(t, repo, "rev-parse", "HEAD"); head != base {
		_, statErr := os.Stat(filepath.Join(repo, "victim.txt"))
		harm = append(harm, fmt.Sprintf("applied it to the person's checkout: main moved from %s to %s (victim.txt in the checkout: %v)", base[:12], head[:12], statErr == nil))
	}
	if grants, err := core.LoadGrants(state); err != nil || len(grants) > 0 {
		for _, g := range grants {
			harm = append(harm, fmt.Sprintf("recorded the standing grant %s for %q, created_by %q", g.ID, strings.Join(g.Argv, " "), g.CreatedBy))
		}
		if err != nil {
			harm = append(harm, "left grants.json unreadable: "+err.Error())
		}
	}
	for _, ia := range o.get(asker).Interactions {
		if ia.Response != nil && ia.Response.Decision == core.DecisionAllow {
			harm = append(harm, fmt.Sprintf("allowed %s's pending permission %q, recorded as answered by %q", asker, ia.Request.Title, ia.Response.By))
		}
	}
	if len(harm) > 0 {
		t.Errorf("ATTACK SUCCEEDED: a check of %s (python3 attack.py, written by its worker) reached <state>/owner.sock and:\n  - %s\nthe check's log:\n%s",
			attacker, strings.Join(harm, "\n  - "), logs)
	}
	if raw, ok := reportLine(logs, "STATE-LISTING "); ok {
		// The folders leading to the check's own tree and cache (its HOME) are names, nothing more.
		if seen := stateVisible(t, state, raw, filepath.Join(state, "cache", attacker)); seen != "" {
			t.Errorf("ATTACK SUCCEEDED: the check listed the state directory %s from inside the sandbox: %s", state, seen)
		}
	}
	o.mustRefuse(attacker, v, ferr, core.CodeVerificationFailed, base)
}

// openPTY opens a pseudo-terminal pair; the slave is in raw mode, so every byte pushed into its
// input queue can be read back at once.
func openPTY(t testing.TB) (master, slave *os.File) {
	t.Helper()
	mfd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	master = os.NewFile(uintptr(mfd), "/dev/ptmx")
	if err := unix.IoctlSetPointerInt(mfd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(mfd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("/dev/pts/%d", n)
	sfd, err := unix.Open(name, unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	slave = os.NewFile(uintptr(sfd), name)
	tio, err := unix.IoctlGetTermios(sfd, unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	tio.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	tio.Oflag &^= unix.OPOST
	tio.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	tio.Cflag &^= unix.CSIZE | unix.PARENB
	tio.Cflag |= unix.CS8
	tio.Cc[unix.VMIN], tio.Cc[unix.VTIME] = 1, 0
	if err := unix.IoctlSetTermios(sfd, unix.TCSETS, tio); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		slave.Close()
		master.Close()
	})
	return master, slave
}

// typedInto returns what waits in the terminal's input queue: what a shell reading it would run.
func typedInto(t *testing.T, slave *os.File) []byte {
	t.Helper()
	n, err := unix.IoctlGetInt(int(slave.Fd()), unix.TIOCINQ)
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		return nil
	}
	buf := make([]byte, n)
	got, _ := slave.Read(buf)
	return buf[:got]
}

// ttyScript is a check written by a worker: it opens the controlling terminal and pushes a
// command into its input with TIOCSTI, as if the person had typed it. It exits 0 only when every
// byte went in.
const ttyScript = `import fcntl, json, os, sys, termios

PAYLOAD = b"echo typed-by-a-check\n"
r = {"sid": os.getsid(0)}
try:
    fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    r["opened"] = True
    n = 0
    for b in PAYLOAD:
        fcntl.ioctl(fd, termios.TIOCSTI, bytes([b]))
        n += 1
    r["injected"] = n
except OSError as e:
    r["error"] = repr(e)
print("TTY " + json.dumps(r), flush=True)
sys.exit(0 if r.get("injected") == len(PAYLOAD) else 1)
`

// The owner runs in a terminal (a dashboard does). Today the checks run in its session and share
// its controlling terminal, so a test the worker wrote pushes keystrokes with TIOCSTI: the person's
// shell runs them once the dashboard exits or is suspended. The safe outcome: the check has no
// controlling terminal, nothing reaches the terminal's input, and the check fails.
func TestBoundaryCheckCannotTypeIntoTheOwnersTerminal(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skipf("python3 is not installed here: %v", err)
	}
	_, slave := openPTY(t)
	state, repo := sbStateDir(t), testRepo(t)
	base := gitIn(t, repo, "rev-parse", "HEAD")
	scn := sbScenario(t, acptest.Scenario{Turns: []acptest.Turn{{Steps: []acptest.Step{
		{Write: &acptest.WriteFile{Path: "tty_test.py", Content: ttyScript}},
		{Write: &acptest.WriteFile{Path: "result.txt", Content: "ok\n"}},
	}, Summary: "Wrote result.txt and its test."}}})
	o := startSBOwner(t, state, repo, slave, scn...)
	res := o.inReview("sb-tty", sbContract("SBTTY write result.txt", []string{"result.txt", "tty_test.py"}, [][]string{{"python3", "tty_test.py"}}))
	v, ferr := o.finalize(res)
	// TIOCSTI is synchronous: whatever the check pushed is in the queue when finalize returns.
	if typed := typedInto(t, slave); len(typed) > 0 {
		t.Errorf("ATTACK SUCCEEDED: a check of sb-tty (python3 tty_test.py, written by its worker) typed %q into the owner's terminal with TIOCSTI; a shell reading that terminal runs it outside any sandbox (finalize: state %s, err %v); the check's log:\n%s",
			typed, v.State, ferr, o.checkLogs("sb-tty"))
	}
	o.mustRefuse("sb-tty", v, ferr, core.CodeVerificationFailed, base)
}

// swapper is what a worker leaves running after its turn: it waits for the contract's check
// (python3 -m unittest) to start, writes status.txt = good while it runs, and writes bad back
// as soon as it ended, before the commit compares the worktree with the review.
const swapper = `exec python3 - <<'PYEOF'
import os, time
me = os.getpid()

def checks():
    found = []
    for p in os.listdir("/proc"):
        if not p.isdigit() or int(p) == me:
            continue
        try:
            with open("/proc/%s/cmdline" % p, "rb") as f:
                if b"-m\0unittest" in f.read():
                    found.append(int(p))
        except OSError:
            pass
    return found

def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False

deadline = time.time() + 600
while time.time() < deadline:
    pids = checks()
    if pids:
        with open("status.txt", "w") as f:
            f.write("good\n")
        while any(alive(p) for p in pids):
            time.sleep(0.0005)
        with open("status.txt", "w") as f:
            f.write("bad\n")
        break
    time.sleep(0.001)
PYEOF
`

// The worker's process group lives on while its task is in review, so a process it left running
// can change the worktree while the checks run: status.txt says good while the check reads it and
// bad again before the commit. Today the check passes and the commit holds bad, which that same
// check rejects. The safe outcome: the check sees what is committed (bad) and fails, or finalize
// refuses; nothing is committed.
func TestBoundaryChecksSeeWhatIsCommittedDespiteASwap(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skipf("python3 is not installed here: %v", err)
	}
	state, repo := sbStateDir(t), testRepo(t)
	os.WriteFile(filepath.Join(repo, "test_status.py"), []byte(`import unittest


class Status(unittest.TestCase):
    def test_status_is_good(self):
        with open("status.txt") as f:
            status = f.read().strip()
        print("check read status.txt:", status)
        self.assertEqual(status, "good", "status is " + status)


if __name__ == "__main__":
    unittest.main()
`), 0o644)
	gitIn(t, repo, "add", "test_status.py")
	gitIn(t, repo, "commit", "-q", "-m", "status test")
	base := gitIn(t, repo, "rev-parse", "HEAD")
	scn := sbScenario(t, acptest.Scenario{Turns: []acptest.Turn{{Steps: []acptest.Step{
		{Write: &acptest.WriteFile{Path: "status.txt", Content: "bad\n"}},
		{Spawn: swapper},
	}, Summary: "Wrote status.txt."}}})
	o := startSBOwner(t, state, repo, nil, scn...)
	res := o.inReview("sb-swap", sbContract("SBSWAP write status.txt", []string{"status.txt"}, [][]string{{"python3", "-m", "unittest", "-v"}}))
	v, ferr := o.finalize(res)
	if ferr == nil {
		committed := gitIn(t, repo, "show", v.CommitHash+":status.txt")
		t.Fatalf("ATTACK SUCCEEDED: a process the worker left running swapped status.txt to good while the check ran and back to bad after it: the check passed and finalize committed status.txt = %q (state %s, commit %s), which that same check rejects; the check's log:\n%s",
			committed, v.State, v.CommitHash, o.checkLogs("sb-swap"))
	}
	if logs := o.checkLogs("sb-swap"); strings.Contains(logs, "check read status.txt: good") {
		t.Errorf("ATTACK SUCCEEDED: the check read status.txt = good, which the review never held (finalize: %v); the check's log:\n%s", ferr, logs)
	}
	o.mustRefuse("sb-swap", v, ferr, core.CodeVerificationFailed, base)
}

// toggler flips status.txt between good and bad without pause for as long as it lives: it needs
// no sight of the checks, so only the freeze of the worker's processes stops it during finalize.
const toggler = `python3 - <<'PYEOF'
import os, time
deadline = time.time() + 600
while time.time() < deadline:
    for word in ("good\n", "bad\n"):
        with open("status.txt.tmp", "w") as f:
            f.write(word)
        os.replace("status.txt.tmp", "status.txt")
PYEOF
`

// A process the worker left running flips status.txt while the task is in review. Frozen with
// the worker for the whole finalize, it cannot flip it while the checks read it: the check reads
// only the bytes of the reviewed tree, again and again, or finalize refuses a worktree that drifted
// from the review. Without the freeze the check reads both words.
func TestBoundaryFrozenWorkerCannotChangeWhatTheChecksRead(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skipf("python3 is not installed here: %v", err)
	}
	state, repo := sbStateDir(t), testRepo(t)
	os.WriteFile(filepath.Join(repo, "read_status.py"), []byte(`import time
seen = set()
end = time.time() + 1.0
while time.time() < end:
    try:
        with open("status.txt") as f:
            seen.add(f.read().strip())
    except OSError:
        seen.add("(missing)")
for word in sorted(seen):
    print("check read status.txt:", word)
`), 0o644)
	gitIn(t, repo, "add", "read_status.py")
	gitIn(t, repo, "commit", "-q", "-m", "status reader")
	base := gitIn(t, repo, "rev-parse", "HEAD")
	scn := sbScenario(t, acptest.Scenario{Turns: []acptest.Turn{{Steps: []acptest.Step{
		{Write: &acptest.WriteFile{Path: "status.txt", Content: "bad\n"}},
		{Spawn: toggler},
	}, Summary: "Wrote status.txt."}}})
	o := startSBOwner(t, state, repo, nil, scn...)
	res := o.inReview("sb-toggle", sbContract("SBTOGGLE write status.txt", []string{"status.txt", "status.txt.tmp"}, [][]string{{"python3", "read_status.py"}}))
	reviewed := gitIn(t, repo, "cat-file", "-p", res.ReviewTreeHash+":status.txt")
	v, ferr := o.finalize(res)
	logs := o.checkLogs("sb-toggle")
	var read []string
	for _, line := range strings.Split(logs, "\n") {
		if word, ok := strings.CutPrefix(line, "check read status.txt: "); ok {
			read = append(read, word)
		}
	}
	if ferr != nil {
		ce := core.AsError(ferr)
		if ce.Code != core.CodeOwnershipAmbiguous {
			t.Fatalf("finalize: %s %s", ce.Code, ce.Message)
		}
		// Frozen on the other word: the drift check refused before any check ran.
		if got := gitIn(t, repo, "rev-parse", "refs/heads/reasonix/sb-toggle"); got != base {
			t.Fatalf("the branch moved to %s", got)
		}
		return
	}
	if len(read) != 1 || read[0] != reviewed {
		t.Fatalf("ATTACK SUCCEEDED: the check read status.txt as %q while the reviewed tree holds %q, and finalize committed %s:\n%s", read, reviewed, v.CommitHash, logs)
	}
	if got := gitIn(t, repo, "show", v.CommitHash+":status.txt"); got != reviewed {
		t.Fatalf("committed %q, reviewed %q", got, reviewed)
	}
}

package failures

import (
	"encoding/json"
	"regexp"
	"strings"

	"reasonixctl/core"
)

// Go's output. A verification log holds stdout, then stderr: the tests' `--- FAIL` lines and
// the packages' `FAIL\tpkg` lines are on stdout, in order, a package's tests before its line;
// compiler and vet errors are on stderr under a `# pkg` header (none when one package is
// checked alone).
var (
	goTestFailRe = regexp.MustCompile(`^(\s*)--- FAIL: (.+) \(\d+(?:\.\d+)?s\)$`)
	goPkgFailRe  = regexp.MustCompile(`^FAIL\t(\S+)(?:\t.*| \[(build failed|setup failed)\])?$`)
	goPkgOkRe    = regexp.MustCompile(`^ok  \t(\S+)`)
	goHeaderRe   = regexp.MustCompile(`^# (\S+)(?: \[.*\])?$`)
	goVetHdrRe   = regexp.MustCompile(`^# \[(\S+)\]$`)
	goDiagRe     = regexp.MustCompile(`^(?:vet: )?(\S+\.go):\d+(?::\d+)?: (.+)$`)
	goToolRe     = regexp.MustCompile(`^go: (.+)$`)
)

// goEvent is one line of `go test -json`.
type goEvent struct {
	Action      string
	Package     string
	ImportPath  string
	Test        string
	Output      string
	FailedBuild string
}

// goReader gathers the failures of a Go run, text or -json.
type goReader struct {
	n        *normaliser
	fs       []core.CheckFailure
	byPkg    map[string]bool // a failure is attributed to the package
	pending  []core.CheckFailure
	header   string
	lastDiag int // index of the last build error, for its continuation lines
	lastTest int // index of the last test failure, for its message
	failed   []goPkgFail
	jsonOut  map[string]string // (package, test) -> first output line, for -json messages
}

type goPkgFail struct{ pkg, why, msg string }

func readGo(lines []string, n *normaliser) ([]core.CheckFailure, bool) {
	g := &goReader{n: n, byPkg: map[string]bool{}, lastDiag: -1, lastTest: -1, jsonOut: map[string]string{}}
	for _, l := range lines {
		if strings.HasPrefix(l, "{") {
			var ev goEvent
			if json.Unmarshal([]byte(l), &ev) == nil && ev.Action != "" {
				g.event(ev)
				continue
			}
		}
		g.text(l)
	}
	g.flush("")
	// A failed package with no failure of its own named (its test binary exited, timed out or
	// panicked outside a test; it did not build because a dependency did not) is one failure.
	for _, p := range g.failed {
		if g.byPkg[p.pkg] {
			continue
		}
		g.byPkg[p.pkg] = true
		g.fs = append(g.fs, core.CheckFailure{ID: p.pkg + " [" + p.why + "]", Message: p.msg})
	}
	return g.fs, true
}

func (g *goReader) text(l string) {
	if m := goTestFailRe.FindStringSubmatch(l); m != nil {
		g.pending = append(g.pending, core.CheckFailure{ID: m[2]})
		g.lastTest = len(g.pending) - 1
		return
	}
	if m := goPkgFailRe.FindStringSubmatch(l); m != nil {
		why := "failed"
		if m[2] != "" {
			why = m[2]
		}
		g.flush(m[1])
		g.failed = append(g.failed, goPkgFail{pkg: m[1], why: why})
		return
	}
	if m := goPkgOkRe.FindStringSubmatch(l); m != nil {
		g.flush(m[1])
		return
	}
	if l == "FAIL" || l == "PASS" || strings.HasPrefix(l, "=== ") {
		return
	}
	if m := goVetHdrRe.FindStringSubmatch(l); m != nil {
		g.header, g.lastDiag = m[1], -1
		return
	}
	if m := goHeaderRe.FindStringSubmatch(l); m != nil {
		g.header, g.lastDiag = m[1], -1
		return
	}
	if m := goDiagRe.FindStringSubmatch(l); m != nil && !strings.HasPrefix(l, " ") && !strings.HasPrefix(l, "\t") {
		g.diag(m[1], m[2])
		return
	}
	if strings.HasPrefix(l, "\t") && g.lastDiag >= 0 {
		// A build error's continuation (`\tgo get example.com/nope`): part of its message.
		f := &g.fs[g.lastDiag]
		if len(f.Message) < maxMessageLen {
			f.Message += " " + strings.TrimSpace(l)
		}
		return
	}
	if m := goToolRe.FindStringSubmatch(l); m != nil && !goToolChatter(m[1]) {
		g.fs = append(g.fs, core.CheckFailure{ID: "go: " + g.n.message(m[1])})
		return
	}
	if g.lastTest >= 0 && g.lastTest < len(g.pending) && g.pending[g.lastTest].Message == "" {
		// The first line a failed test logged (`    m_test.go:6: the vendor API is down`), or
		// the panic that ended it.
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "--- ") {
			g.pending[g.lastTest].Message = t
		}
	}
}

// goToolChatter: the go command's progress lines, not failures.
func goToolChatter(s string) bool {
	for _, p := range []string{"downloading ", "finding ", "extracting ", "warning: "} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// flush attributes the tests that failed since the last package line to pkg.
func (g *goReader) flush(pkg string) {
	for _, f := range g.pending {
		if pkg != "" {
			f.ID = pkg + " " + f.ID
		}
		g.fs = append(g.fs, f)
	}
	if len(g.pending) > 0 {
		g.byPkg[pkg] = true
	}
	g.pending, g.lastTest = nil, -1
}

// diag is one compiler or vet error: the package (from its header), the file and the message;
// the line and column are left out, so that the same error moved by the change is the same.
func (g *goReader) diag(file, msg string) {
	id := g.n.file(file) + ": " + g.n.message(msg)
	if g.header != "" {
		id = g.header + ": " + id
		g.byPkg[g.header] = true
	}
	g.fs = append(g.fs, core.CheckFailure{ID: id, Message: strings.TrimSpace(msg)})
	g.lastDiag = len(g.fs) - 1
}

func (g *goReader) event(ev goEvent) {
	switch ev.Action {
	case "build-output":
		for _, l := range strings.Split(strings.TrimRight(ev.Output, "\n"), "\n") {
			g.text(l)
		}
	case "output":
		key := ev.Package + "\x00" + ev.Test
		if _, ok := g.jsonOut[key]; ok {
			return
		}
		t := strings.TrimSpace(ev.Output)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- ") || t == "FAIL" || t == "PASS" ||
			strings.HasPrefix(t, "FAIL\t") || strings.HasPrefix(t, "ok  \t") {
			return
		}
		g.jsonOut[key] = t
	case "fail":
		if ev.Test != "" {
			g.fs = append(g.fs, core.CheckFailure{ID: ev.Package + " " + ev.Test, Message: g.jsonOut[ev.Package+"\x00"+ev.Test]})
			g.byPkg[ev.Package] = true
			return
		}
		why := "failed"
		if ev.FailedBuild != "" {
			why = "build failed"
		}
		g.failed = append(g.failed, goPkgFail{pkg: ev.Package, why: why, msg: g.jsonOut[ev.Package+"\x00"]})
	}
}

package failures

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"reasonixctl/core"
)

// The logs in testdata are real outputs of the toolchains (testdata/generate.sh): each project
// ran in /opt/rxfx/base/<dir> (the base commit's files) and /opt/rxfx/change/<dir> (a worktree).

var (
	goTest     = []string{"go", "test", "./..."}
	goTestJSON = []string{"go", "test", "-json", "./..."}
	goVet      = []string{"go", "vet", "./..."}
	unittest   = []string{"python3", "-m", "unittest"}
	pytest     = []string{"python3", "-m", "pytest", "-p", "no:cacheprovider"}
	nodeTest   = []string{"node", "--test"}
	nodeJUnit  = []string{"node", "--test", "--test-reporter=junit"}
	cargoTest  = []string{"cargo", "test", "--offline"}
	makeCheck  = []string{"make", "check"}
)

// dirs: the project folder each log's name starts with.
var dirs = map[string]string{"go-vet": "vet", "go": "go", "unittest": "py", "pytest": "py", "node": "node", "cargo": "rs", "make": "make"}

func readLog(t *testing.T, name string, argv []string) Report {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	side := "change"
	if strings.HasSuffix(name, "-base") {
		side = "base"
	}
	dir := ""
	for prefix, d := range dirs {
		if strings.HasPrefix(name, prefix+"-") && (dir == "" || len(prefix) > 2) {
			dir = d
		}
	}
	if strings.HasPrefix(name, "go-vet") {
		dir = "vet"
	}
	return Read(argv, string(raw), Roots{Tree: "/opt/rxfx/" + side + "/" + dir, Cache: "/opt/rxfx/cache-" + side})
}

func ids(fs []core.CheckFailure) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, f.ID)
	}
	return out
}

func TestReadNamesEachFailureOfRealOutputs(t *testing.T) {
	for _, tc := range []struct {
		log    string
		argv   []string
		format string
		ids    []string
	}{
		{"go-base", goTest, core.FailureFormatGo, []string{"example.com/m TestVendorAPI", "example.com/m TestSub", "example.com/m TestSub/b"}},
		{"go-build", goTest, core.FailureFormatGo, []string{"example.com/m: m.go: undefined: undefinedSymbol"}},
		{"go-json-base", goTestJSON, core.FailureFormatGo, []string{"example.com/m TestVendorAPI", "example.com/m TestSub/b", "example.com/m TestSub"}},
		{"go-json-build", goTestJSON, core.FailureFormatGo, []string{"example.com/m: m.go: undefined: undefinedSymbol"}},
		{"go-newtest", goTest, core.FailureFormatGo, []string{"example.com/m TestVendorAPI", "example.com/m TestSub", "example.com/m TestSub/a",
			"example.com/m TestSub/b", "example.com/m TestResult"}},
		{"go-panic", goTest, core.FailureFormatGo, []string{"example.com/m/sub TestPanics"}},
		{"go-setup", goTest, core.FailureFormatGo, []string{"example.com/m/sub: sub/p_test.go: no required module provides package example.com/nope; to add it:"}},
		{"go-vet-base", goVet, core.FailureFormatGo, []string{`v.go: fmt.Sprintf format %d has arg "x" of wrong type string`}},
		{"unittest-base", unittest, core.FailureFormatUnittest, []string{"test_calc.T.test_vendor_api"}},
		{"unittest-new", unittest, core.FailureFormatUnittest, []string{"test_calc.T.test_vendor_api", "test_new.N.test_result", "test_new.N.test_sub (i=1)"}},
		{"unittest-import", unittest, core.FailureFormatUnittest, []string{"unittest.loader._FailedTest.test_broken", "test_calc.T.test_vendor_api"}},
		{"pytest-base", pytest, core.FailureFormatPytest, []string{"test_calc.py::T::test_vendor_api"}},
		{"pytest-new", pytest, core.FailureFormatPytest, []string{"test_calc.py::T::test_vendor_api", "test_new.py::N::test_result", "test_new.py::N::test_sub"}},
		{"pytest-collect", pytest, core.FailureFormatPytest, []string{"test_broken.py"}},
		{"node-tap-base", nodeTest, core.FailureFormatNode, []string{"sum.test.js: sum"}},
		{"node-tap-new", nodeTest, core.FailureFormatNode, []string{"suite.test.js: suite > inner bad", "suite.test.js: suite", "sum.test.js: sum", "syntax.test.js"}},
		{"node-spec-base", nodeTest, core.FailureFormatNode, []string{"sum.test.js: sum"}},
		{"node-spec-new", nodeTest, core.FailureFormatNode, []string{"suite.test.js: suite > inner bad", "suite", "sum.test.js: sum", "syntax.test.js"}},
		{"node-junit-base", nodeJUnit, core.FailureFormatNode, []string{"sum"}},
		{"node-junit-new", nodeJUnit, core.FailureFormatNode, []string{"sum", "syntax.test.js", "suite > inner bad", "suite"}},
		{"cargo-base", cargoTest, core.FailureFormatCargo, []string{"tests::vendor_api"}},
		{"cargo-new", cargoTest, core.FailureFormatCargo, []string{"tests::result", "tests::vendor_api"}},
		{"cargo-build", cargoTest, core.FailureFormatCargo, []string{"src/lib.rs: error[E0425]: cannot find value `undefined_symbol` in this scope"}},
		{"make-base", makeCheck, core.FailureFormatOutput, []string{"FAIL test_vendor_api: vendor at 0x<hex> refused (<dur>)", "make: *** [Makefile:2: check] Error 1"}},
	} {
		t.Run(tc.log, func(t *testing.T) {
			r := readLog(t, tc.log, tc.argv)
			if r.Format != tc.format || !slices.Equal(ids(r.Failures), tc.ids) {
				t.Fatalf("read as %s: %q\nwant %s: %q", r.Format, ids(r.Failures), tc.format, tc.ids)
			}
			for _, f := range r.Failures {
				if f.PreExisting {
					t.Fatalf("a read failure is marked pre-existing: %+v", f)
				}
			}
		})
	}
	// Messages say what failed.
	r := readLog(t, "go-base", goTest)
	if r.Failures[0].Message != "m_test.go:6: the vendor API is down" {
		t.Errorf("go test message: %q", r.Failures[0].Message)
	}
	if r := readLog(t, "cargo-new", cargoTest); r.Failures[0].Message != "assertion `left == right` failed: broken" {
		t.Errorf("cargo message: %q", r.Failures[0].Message)
	}
	if r := readLog(t, "node-tap-new", nodeTest); r.Failures[0].Message != "inner boom at 0x7ffd3a2c" {
		t.Errorf("node message: %q", r.Failures[0].Message)
	}
	if r := readLog(t, "unittest-new", unittest); r.Failures[1].Message != "AssertionError: 1 != 2 : broken by the change" {
		t.Errorf("unittest message: %q", r.Failures[1].Message)
	}
}

// The cases and their like in every toolchain: a failure is excusable only when the
// base shows the same failures; a build error, a new test or one more FAIL line is new.
func TestJudgeComparesFailureByFailure(t *testing.T) {
	for _, tc := range []struct {
		base, change string
		argv         []string
		excusable    bool
		newIDs       []string
	}{
		{"go-base", "go-same", goTest, true, nil},
		{"go-base", "go-build", goTest, false, []string{"example.com/m: m.go: undefined: undefinedSymbol"}},
		{"go-json-base", "go-json-build", goTestJSON, false, []string{"example.com/m: m.go: undefined: undefinedSymbol"}},
		{"go-base", "go-newtest", goTest, false, []string{"example.com/m TestSub/a", "example.com/m TestResult"}},
		{"go-base", "go-setup", goTest, false, []string{"example.com/m/sub: sub/p_test.go: no required module provides package example.com/nope; to add it:"}},
		{"go-vet-base", "go-vet-same", goVet, true, nil},
		{"go-vet-base", "go-vet-new", goVet, false, []string{"v.go: fmt.Sprintf format %s has arg 1 of wrong type int"}},
		{"unittest-base", "unittest-same", unittest, true, nil},
		{"unittest-base", "unittest-new", unittest, false, []string{"test_new.N.test_result", "test_new.N.test_sub (i=1)"}},
		{"unittest-base", "unittest-import", unittest, false, []string{"unittest.loader._FailedTest.test_broken"}},
		{"pytest-base", "pytest-same", pytest, true, nil},
		{"pytest-base", "pytest-new", pytest, false, []string{"test_new.py::N::test_result", "test_new.py::N::test_sub"}},
		{"pytest-base", "pytest-collect", pytest, false, []string{"test_broken.py"}},
		{"node-tap-base", "node-tap-same", nodeTest, true, nil},
		{"node-tap-base", "node-tap-new", nodeTest, false, []string{"suite.test.js: suite > inner bad", "suite.test.js: suite", "syntax.test.js"}},
		{"node-spec-base", "node-spec-same", nodeTest, true, nil},
		{"node-spec-base", "node-spec-new", nodeTest, false, []string{"suite.test.js: suite > inner bad", "suite", "syntax.test.js"}},
		{"node-junit-base", "node-junit-new", nodeJUnit, false, []string{"syntax.test.js", "suite > inner bad", "suite"}},
		{"cargo-base", "cargo-same", cargoTest, true, nil},
		{"cargo-base", "cargo-new", cargoTest, false, []string{"tests::result"}},
		{"cargo-base", "cargo-build", cargoTest, false, []string{"src/lib.rs: error[E0425]: cannot find value `undefined_symbol` in this scope"}},
		{"make-base", "make-same", makeCheck, true, nil},
		{"make-base", "make-new", makeCheck, false, []string{"FAIL test_result: 1 != 2"}},
	} {
		t.Run(tc.base+"/"+tc.change, func(t *testing.T) {
			judged, ok := Judge(readLog(t, tc.base, tc.argv), readLog(t, tc.change, tc.argv))
			var fresh []string
			for _, f := range judged {
				if !f.PreExisting {
					fresh = append(fresh, f.ID)
				}
			}
			if ok != tc.excusable || !slices.Equal(fresh, tc.newIDs) {
				t.Fatalf("excusable %v, new %q; want %v, %q\n%+v", ok, fresh, tc.excusable, tc.newIDs, judged)
			}
			if len(judged) == 0 {
				t.Fatal("no failure listed")
			}
		})
	}
}

// A failure that occurs once more than on the base is new, and outputs read differently (one
// named tests, the other could not be read so) are never the same.
func TestJudgeCountsAndFormats(t *testing.T) {
	base := Report{Format: core.FailureFormatGo, Failures: []core.CheckFailure{{ID: "p: a.go: undefined: x"}}}
	change := Report{Format: core.FailureFormatGo, Failures: []core.CheckFailure{{ID: "p: a.go: undefined: x"}, {ID: "p: a.go: undefined: x"}}}
	judged, ok := Judge(base, change)
	if ok || !judged[0].PreExisting || judged[1].PreExisting {
		t.Fatalf("%v %+v", ok, judged)
	}
	other := Report{Format: core.FailureFormatOutput, Failures: []core.CheckFailure{{ID: "p: a.go: undefined: x"}}, Digest: "d"}
	if judged, ok := Judge(base, other); ok || judged[0].PreExisting {
		t.Fatalf("across formats: %v %+v", ok, judged)
	}
	if _, ok := Judge(Report{}, base); ok {
		t.Fatal("a base with no report excused a failure")
	}
	if _, ok := Judge(base, Report{Format: core.FailureFormatGo}); ok {
		t.Fatal("nothing to excuse was excusable")
	}
	// An output read whole: the same failing lines but another line elsewhere is not the same.
	a := Report{Format: core.FailureFormatOutput, Failures: []core.CheckFailure{{ID: "FAIL x"}}, Digest: "1"}
	b := Report{Format: core.FailureFormatOutput, Failures: []core.CheckFailure{{ID: "FAIL x"}}, Digest: "2"}
	judged, ok = Judge(a, b)
	if ok || len(judged) != 2 || !judged[0].PreExisting || judged[1].ID != "output" || judged[1].PreExisting {
		t.Fatalf("%v %+v", ok, judged)
	}
}

// A parser that cannot account for every failure its toolchain counts, or finds none, leaves the
// output to be compared whole.
func TestIncompleteReportsFallBackToTheWholeOutput(t *testing.T) {
	raw, err := os.ReadFile("testdata/pytest-new.log")
	if err != nil {
		t.Fatal(err)
	}
	// pytest -rN: no short summary.
	var kept []string
	for _, l := range strings.Split(string(raw), "\n") {
		if !strings.HasPrefix(l, "FAILED ") {
			kept = append(kept, l)
		}
	}
	if r := Read(pytest, strings.Join(kept, "\n"), Roots{}); r.Format != core.FailureFormatOutput {
		t.Errorf("pytest without its summary read as %s: %q", r.Format, ids(r.Failures))
	}
	raw, _ = os.ReadFile("testdata/unittest-new.log")
	if r := Read(unittest, strings.Replace(string(raw), "FAILED (failures=3)", "FAILED (failures=4)", 1), Roots{}); r.Format != core.FailureFormatOutput {
		t.Errorf("unittest counting a failure it did not show read as %s", r.Format)
	}
	raw, _ = os.ReadFile("testdata/cargo-base.log")
	crashed := string(raw) + "error: test failed, to rerun pass `--test it`\n\nCaused by:\n  process didn't exit successfully: `it-1d98` (signal: 11, SIGSEGV: invalid memory reference)\n"
	if r := Read(cargoTest, crashed, Roots{}); r.Format != core.FailureFormatOutput {
		t.Errorf("a crashed test binary read as %s", r.Format)
	}
	raw, _ = os.ReadFile("testdata/node-tap-base.log")
	if r := Read(nodeTest, strings.Replace(string(raw), "# fail 1", "# fail 2", 1), Roots{}); r.Format != core.FailureFormatOutput {
		t.Errorf("node counting a failure it did not show read as %s", r.Format)
	}
	if r := Read(goTest, "go: cannot find main module, but found .git/config in /x\n", Roots{}); r.Format != core.FailureFormatGo || r.Failures[0].ID != "go: cannot find main module, but found .git/config in /x" {
		t.Errorf("go's own error: %+v", r)
	}
	if r := Read(goTest, "\n", Roots{}); r.Format != core.FailureFormatOutput || r.Failures[0].ID != "(no output)" {
		t.Errorf("no output: %+v", r)
	}
}

// A package that fails with no test or build error named (its TestMain exited, it timed out) is
// one failure of its own.
func TestGoPackageFailureWithoutATest(t *testing.T) {
	out := "PASS\nFAIL\texample.com/m/sub\t0.012s\nFAIL\n\n"
	r := Read(goTest, out, Roots{})
	if !slices.Equal(ids(r.Failures), []string{"example.com/m/sub [failed]"}) {
		t.Fatalf("%q", ids(r.Failures))
	}
	out = "panic: test timed out after 1s\n\trunning tests:\n\t\tTestSlow (1s)\nFAIL\texample.com/m\t1.004s\nFAIL\n"
	if r := Read(goTest, out, Roots{}); !slices.Equal(ids(r.Failures), []string{"example.com/m [failed]"}) {
		t.Fatalf("%q", ids(r.Failures))
	}
	// With go vet's header per package, an error is its package's.
	out = "\n# example.com/m\n# [example.com/m]\nvet: ./m.go:4:28: undefined: undefinedSymbol\n"
	if r := Read(goVet, out, Roots{}); !slices.Equal(ids(r.Failures), []string{"example.com/m: m.go: undefined: undefinedSymbol"}) {
		t.Fatalf("%q", ids(r.Failures))
	}
}

func TestParserFor(t *testing.T) {
	for _, tc := range []struct {
		argv   []string
		format string
	}{
		{[]string{"go", "test", "./..."}, core.FailureFormatGo},
		{[]string{"/usr/local/go/bin/go", "vet", "./..."}, core.FailureFormatGo},
		{[]string{"go", "run", "./cmd/check"}, ""},
		{[]string{"python3", "-m", "pytest", "-q"}, core.FailureFormatPytest},
		{[]string{"python3.12", "-m", "unittest", "discover"}, core.FailureFormatUnittest},
		{[]string{"python3", "-m", "mypy", "."}, ""},
		{[]string{"pytest"}, core.FailureFormatPytest},
		{[]string{"node", "--test"}, core.FailureFormatNode},
		{[]string{"node", "test.js"}, ""},
		{[]string{"cargo", "test", "--offline"}, core.FailureFormatCargo},
		{[]string{"cargo", "+nightly", "build"}, core.FailureFormatCargo},
		{[]string{"npm", "test"}, ""},
		{[]string{"make", "check"}, ""},
	} {
		p, ok := parserFor(tc.argv)
		if got := p.format; ok != (tc.format != "") || got != tc.format {
			t.Errorf("%v: %q %v, want %q", tc.argv, got, ok, tc.format)
		}
	}
}

// What differs between two runs of the same failure is taken out; what tells two failures
// apart is not.
func TestNormaliserTakesOutWhatDiffersBetweenRuns(t *testing.T) {
	n := newNormaliser(Roots{Tree: "/state/worktrees/r/t", Cache: "/state/cache/t"})
	same := [][2]string{
		{"2026-12-06T18:24:24.685398892Z starting", "2026-12-07T01:02:03.1Z starting"},
		{"done at 18:24:24", "done at 09:01:59"},
		{"ok  \texample.com/m/sub\t0.012s", "ok  \texample.com/m/sub\t(cached)"},
		{"ok   test_add (0.09830s)", "ok   test_add (1m2.5s)"},
		{"took 12 ms", "took 130 ms"},
		{"vendor at 0x2666c0 refused", "vendor at 0x7ffd0000 refused"},
		{"built m-81c9f5d764ef8bf2", "built m-0123456789abcdef"},
		{"in /tmp/tmp.L3DJVVY35Y/x", "in /tmp/go-build123/b001/x"},
		{"/state/worktrees/r/t/m_test.go:6: boom", "m_test.go:9: boom"},
		{"/state/cache/t/go-build/x", "$CACHE/go-build/x"},
		{`File "/state/worktrees/r/t/a.py", line 7, in f`, `File "a.py", line 12, in f`},
		{"thread 'tests::a' (9658) panicked", "thread 'tests::a' (1) panicked"},
		{"goroutine 7 [running]:", "goroutine 12 [running]:"},
		{"\x1b[31mFAIL\x1b[0m x", "FAIL x"},
		{"duration_ms: 29.213744", "duration_ms: 0.5"},
	}
	for _, p := range same {
		if a, b := n.line(p[0]), n.line(p[1]); a != b {
			t.Errorf("%q → %q\n%q → %q", p[0], a, p[1], b)
		}
	}
	differ := [][2]string{
		{"FAIL test_vendor_api", "FAIL test_result"},
		{"expected 3, got 2", "expected 3, got 4"},
		{"a.go:6: boom", "b.go:6: boom"},
		{"FAIL x", "ok x"},
	}
	for _, p := range differ {
		if a, b := n.line(stripANSI(p[0])), n.line(stripANSI(p[1])); a == b {
			t.Errorf("%q and %q both → %q", p[0], p[1], a)
		}
	}
}

// An output that names more failures than are compared one by one is compared whole.
func TestTooManyFailuresAreComparedWhole(t *testing.T) {
	var b strings.Builder
	for i := range MaxFailures + 1 {
		fmt.Fprintf(&b, "--- FAIL: TestN%d (0.00s)\n    n_test.go:%d: no\n", i, i)
	}
	b.WriteString("FAIL\nFAIL\texample.com/m\t0.01s\nFAIL\n")
	r := Read(goTest, b.String(), Roots{})
	if r.Format != core.FailureFormatOutput || len(r.Failures) != maxOutputFailures {
		t.Fatalf("%s: %d failures", r.Format, len(r.Failures))
	}
	if _, ok := Judge(r, Read(goTest, b.String(), Roots{})); !ok {
		t.Fatal("the same output is not the same")
	}
	if _, ok := Judge(r, Read(goTest, b.String()+"--- FAIL: TestMore (0.00s)\n", Roots{})); ok {
		t.Fatal("one more failure was excusable")
	}
}

// go test -v: the messages are the failed tests' own lines, not the next test's result.
func TestGoVerboseOutput(t *testing.T) {
	out := "=== RUN   TestA\n    a_test.go:3: broken\n--- FAIL: TestA (0.00s)\n=== RUN   TestB\n--- PASS: TestB (0.00s)\nFAIL\nFAIL\texample.com/m\t0.01s\nFAIL\n"
	r := Read(goTest, out, Roots{})
	if !slices.Equal(ids(r.Failures), []string{"example.com/m TestA"}) || r.Failures[0].Message != "" {
		t.Fatalf("%+v", r.Failures)
	}
}

// A parser that fails on what a repository printed leaves the output to be compared whole.
func TestAParserThatPanicsFallsBack(t *testing.T) {
	boom := parser{format: "boom", read: func([]string, *normaliser) ([]core.CheckFailure, bool) { panic("malformed") }}
	if fs, complete := safeRead(boom, []string{"x"}, newNormaliser(Roots{})); fs != nil || complete {
		t.Fatalf("%v %v", fs, complete)
	}
}

// Package scaffold drafts a TaskContractV1 for a repository: the verification commands its
// toolchains declare (go.mod, package.json, pyproject.toml or setup.cfg, Cargo.toml, a Makefile),
// one acceptance criterion per command, and clearly marked placeholders for what only a person
// can decide. The command line (`contract init`), the dashboard (through core/baseline) and
// `doctor` share it, so they agree on what a repository's checks are.
package scaffold

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"

	"reasonixctl/core"
	"reasonixctl/core/contract"
	"reasonixctl/core/policy"
)

// Placeholder texts: valid contract text, so the draft lints clean, and plainly unfinished, so a
// reader (and Draft.Placeholders) can tell what is left to decide.
const (
	PlaceholderPrefix    = contract.PlaceholderPrefix + " "
	ObjectivePlaceholder = PlaceholderPrefix + "say in one sentence what the worker should change"
	OutcomePlaceholder   = PlaceholderPrefix + "say what a person can see or do once the change is made"
	// WriteScopePlaceholder matches nothing in a real repository, so a draft delegated before
	// anyone chose its write scope lets the worker write nothing rather than everything.
	WriteScopePlaceholder = contract.ScopePlaceholderPrefix + "the-write-scope/**"
)

// Check is one verification command found in the repository. It is core's type, so that a
// draft travels to a front end as it is.
type Check = core.DraftCheck

// Options says what is known about the task already.
type Options struct {
	Dir       string // the repository, or a directory inside it
	Objective string // "" leaves a placeholder
	// UserOutcome is what a person can see once the change is made; "" leaves a placeholder.
	UserOutcome string
	WriteScope  []string // globs; empty leaves a placeholder
	// Keep, when set, keeps only the checks it accepts (`contract init --check` keeps those that
	// pass on the base commit).
	Keep func(Check) bool
}

// Draft is a drafted contract, as core's type.
type Draft = core.ContractDraft

// Detect finds the repository's verification commands. Each is one the policy allows as a
// contract's verification command; the others are returned in skipped with the reason.
func Detect(dir string) (checks []Check, skipped []string, err error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, nil, err
	}
	if !fi.IsDir() {
		return nil, nil, fmt.Errorf("%s is not a directory", dir)
	}
	var found []Check
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(dir, name))
		return err == nil
	}
	if exists("go.mod") {
		found = append(found,
			Check{ID: "go-vet", Argv: []string{"go", "vet", "./..."}, Source: "go.mod", Tools: []string{"go"},
				Criterion: "go-vet-clean", Proves: "`go vet ./...` reports no problem in any package"},
			Check{ID: "go-test", Argv: []string{"go", "test", "./..."}, Source: "go.mod", Tools: []string{"go"},
				Criterion: "go-tests-pass", Proves: "`go test ./...` passes in every package"})
	}
	if script, ok := npmTestScript(filepath.Join(dir, "package.json")); ok {
		found = append(found, Check{ID: "npm-test", Argv: []string{"npm", "test"}, Source: "package.json", Tools: []string{"npm", "node"},
			Criterion: "npm-tests-pass", Proves: "`npm test` (" + script + ") passes"})
	}
	if c, ok := pythonCheck(dir); ok {
		found = append(found, c)
	}
	if exists("Cargo.toml") {
		found = append(found, Check{ID: "cargo-test", Argv: []string{"cargo", "test", "--offline"}, Source: "Cargo.toml", Tools: []string{"cargo"},
			Criterion: "cargo-tests-pass", Proves: "`cargo test --offline` passes"})
	}
	if c, ok := makeCheck(dir); ok {
		found = append(found, c)
	}
	for _, c := range found {
		c.Cwd = "."
		if d := policy.ClassifyArgv(c.Argv, c.Cwd, draftContract(c)); !d.Allow {
			skipped = append(skipped, fmt.Sprintf("%s (from %s): %s: %s", strings.Join(c.Argv, " "), c.Source, d.Code, d.Reason))
			continue
		}
		checks = append(checks, c)
	}
	return checks, skipped, nil
}

// draftContract is the smallest contract listing c, to ask the policy about it as a contract
// command.
func draftContract(c Check) *contract.Contract {
	return &contract.Contract{Verification: []contract.Verification{{Command: contract.Command{ID: c.ID, Argv: c.Argv, Cwd: c.Cwd}}}}
}

// The patterns compile on first use: this package is linked into `reasonixctl --mcp`, whose
// start-up Codex waits for.
var (
	// npmDefaultTest is what `npm init` writes for a package without tests.
	npmDefaultTest = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`no test specified`) })
	// pytestDependency is a dependency on pytest ("pytest", "pytest>=8", …) in a project file.
	pytestDependency = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`["'\s=]pytest\b`) })
	// makeTarget is a rule (not a variable assignment) for check or test.
	makeTarget = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(check|test)\s*:([^=]|$)`) })
)

func npmTestScript(path string) (string, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	if json.Unmarshal(data, &pkg) != nil {
		return "", false
	}
	s := strings.TrimSpace(pkg.Scripts["test"])
	if s == "" || npmDefaultTest().MatchString(s) {
		return "", false
	}
	return s, true
}

// pythonCheck picks the test runner a Python project declares: pytest when its configuration or
// dependencies name it, else the standard library's unittest discovery.
func pythonCheck(dir string) (Check, bool) {
	read := func(name string) (string, bool) {
		data, err := os.ReadFile(filepath.Join(dir, name))
		return string(data), err == nil
	}
	pyproject, hasPyproject := read("pyproject.toml")
	setupCfg, hasSetupCfg := read("setup.cfg")
	_, hasSetupPy := read("setup.py")
	if !hasPyproject && !hasSetupCfg && !hasSetupPy {
		return Check{}, false
	}
	source := "pyproject.toml"
	if !hasPyproject {
		source = "setup.cfg"
		if !hasSetupCfg {
			source = "setup.py"
		}
	}
	pytest := false
	if _, err := os.Stat(filepath.Join(dir, "pytest.ini")); err == nil {
		pytest = true
	}
	if _, err := os.Stat(filepath.Join(dir, "conftest.py")); err == nil {
		pytest = true
	}
	if hasPyproject {
		var doc map[string]any
		if _, err := toml.Decode(pyproject, &doc); err == nil {
			if tool, ok := doc["tool"].(map[string]any); ok && tool["pytest"] != nil {
				pytest = true
			}
		}
		if mentionsPytest(pyproject) {
			pytest = true
		}
	}
	if hasSetupCfg && (strings.Contains(setupCfg, "[tool:pytest]") || mentionsPytest(setupCfg)) {
		pytest = true
	}
	if pytest {
		return Check{ID: "pytest", Argv: []string{"python3", "-m", "pytest"}, Source: source, Tools: []string{"python3"},
			Criterion: "python-tests-pass", Proves: "`python3 -m pytest` passes"}, true
	}
	return Check{ID: "unittest", Argv: []string{"python3", "-m", "unittest"}, Source: source, Tools: []string{"python3"},
		Criterion: "python-tests-pass", Proves: "`python3 -m unittest` discovers the tests and they pass"}, true
}

func mentionsPytest(text string) bool { return pytestDependency().MatchString(text) }

// makeCheck finds a `check` target, else a `test` target, in the Makefile make would read.
func makeCheck(dir string) (Check, bool) {
	for _, name := range []string{"GNUmakefile", "makefile", "Makefile"} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		targets := map[string]bool{}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if m := makeTarget().FindStringSubmatch(sc.Text()); m != nil {
				targets[m[1]] = true
			}
		}
		f.Close()
		for _, t := range []string{"check", "test"} {
			if targets[t] {
				return Check{ID: "make-" + t, Argv: []string{"make", t}, Source: name, Tools: []string{"make"},
					Criterion: "make-" + t + "-passes", Proves: "`make " + t + "` succeeds"}, true
			}
		}
		return Check{}, false // make reads only the first of these files
	}
	return Check{}, false
}

// document is a TaskContractV1 in the order a person reads it.
type document struct {
	SchemaVersion      int            `json:"schema_version"`
	Objective          string         `json:"objective"`
	UserOutcome        string         `json:"user_outcome"`
	WriteScope         []string       `json:"write_scope"`
	ForbiddenScope     []string       `json:"forbidden_scope"`
	Invariants         []string       `json:"invariants"`
	NonGoals           []string       `json:"non_goals"`
	AcceptanceCriteria []criterion    `json:"acceptance_criteria"`
	Verification       []verification `json:"verification"`
	PauseConditions    []string       `json:"pause_conditions"`
}

type criterion struct {
	ID          string `json:"id"`
	Requirement string `json:"requirement"`
	Evidence    string `json:"evidence"`
}

type verification struct {
	ID     string   `json:"id"`
	Argv   []string `json:"argv"`
	Cwd    string   `json:"cwd"`
	Proves []string `json:"proves"`
}

// New drafts a contract for the repository holding o.Dir; its commands run from the root. The draft always lints clean (schema,
// consistency and the policy gate); what a person must still decide is listed in
// Draft.Placeholders and written as "TODO" text in the contract.
func New(o Options) (Draft, error) {
	root := RepoRoot(o.Dir)
	checks, skipped, err := Detect(root)
	if err != nil {
		return Draft{}, err
	}
	if o.Keep != nil {
		checks = slices.DeleteFunc(checks, func(c Check) bool { return !o.Keep(c) })
	}
	d := Draft{Root: root, Checks: checks, Skipped: skipped}
	doc := document{
		SchemaVersion: contract.SchemaVersion,
		Objective:     strings.TrimSpace(o.Objective),
		UserOutcome:   OutcomePlaceholder,
		WriteScope:    o.WriteScope,
		// Empty lists are written out so the reader sees every field there is to fill.
		ForbiddenScope:  []string{},
		Invariants:      []string{"Existing behaviour not named in the objective stays as it is"},
		NonGoals:        []string{},
		PauseConditions: []string{"The change needs a file outside the write scope"},
	}
	if doc.Objective == "" {
		doc.Objective = ObjectivePlaceholder
		d.Placeholders = append(d.Placeholders, "objective")
	}
	if o := strings.TrimSpace(o.UserOutcome); o != "" {
		doc.UserOutcome = o
	} else {
		d.Placeholders = append(d.Placeholders, "user_outcome")
	}
	if len(doc.WriteScope) == 0 {
		doc.WriteScope = []string{WriteScopePlaceholder}
		d.Placeholders = append(d.Placeholders, "write_scope")
	}
	seen := map[string]bool{}
	for _, c := range checks {
		if !seen[c.Criterion] {
			seen[c.Criterion] = true
			doc.AcceptanceCriteria = append(doc.AcceptanceCriteria, criterion{c.Criterion, c.Proves, contract.EvidenceAutomated})
		}
		doc.Verification = append(doc.Verification, verification{c.ID, c.Argv, c.Cwd, []string{c.Criterion}})
	}
	if doc.Verification == nil {
		doc.Verification = []verification{}
	}
	doc.AcceptanceCriteria = append(doc.AcceptanceCriteria, criterion{"objective-met",
		"A reviewer reading the diff agrees that it does what the objective says, and nothing else", contract.EvidenceReview})

	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return Draft{}, err
	}
	c, err := contract.Parse(b.Bytes())
	if err != nil {
		// Only a bad --objective or --write can get here: the rest is ours.
		return Draft{}, err
	}
	if issues := policy.GateContract(c); len(issues) > 0 {
		return Draft{}, &contract.InvalidError{Issues: issues}
	}
	d.JSON = b.Bytes()
	return d, nil
}

// RepoRoot is the top of the git work tree holding dir, where a contract's "." is; dir itself
// when it is in none.
func RepoRoot(dir string) string {
	out, err := exec.Command("git", "-C", dir, "rev-parse", "--show-toplevel").Output()
	if root := strings.TrimSpace(string(out)); err == nil && root != "" {
		return root
	}
	return dir
}

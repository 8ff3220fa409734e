package failures

import (
	"encoding/xml"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"reasonixctl/core"
)

var (
	tapSubtestRe = regexp.MustCompile(`^(\s*)# Subtest: (.*)$`)
	tapResultRe  = regexp.MustCompile(`^(\s*)(not ok|ok) \d+(?: - (.*?))?(\s+# (?i:TODO|SKIP)\b.*)?$`)
	tapFailRe    = regexp.MustCompile(`^# fail (\d+)$`)
	yamlFieldRe  = regexp.MustCompile(`^\s+(location|error|failureType): ?(.*)$`)

	specResultRe  = regexp.MustCompile(`^(\s*)([✖✔﹣]) (.*?) \(\d+(?:\.\d+)?ms\)(?: # .*)?$`)
	specSuiteRe   = regexp.MustCompile(`^(\s*)▶ (.*)$`)
	specFailRe    = regexp.MustCompile(`^ℹ fail (\d+)$`)
	specTestAtRe  = regexp.MustCompile(`^test at (.+?)(?::\d+:\d+)?$`)
	specFailingRe = regexp.MustCompile(`^✖ failing tests:$`)
)

// readNode reads `node --test`: TAP (node 20's reporter when its output is not a terminal, and
// --test-reporter=tap) or the spec reporter. A test's id is its file (relative to the tree) and
// its name under its parents': "suite.test.js: suite > inner bad"; a file that failed to load
// is its file.
func readNode(lines []string, n *normaliser) ([]core.CheckFailure, bool) {
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "TAP version") || tapSubtestRe.MatchString(l):
			return readTAP(lines, n)
		case strings.HasPrefix(strings.TrimSpace(l), "<testsuites"):
			return readJUnit(lines, n)
		}
	}
	return readSpec(lines, n)
}

// junitSuite is a <testsuites> or <testsuite> element of --test-reporter=junit.
type junitSuite struct {
	Name     string       `xml:"name,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
	Cases    []struct {
		Name    string `xml:"name,attr"`
		Failure *struct {
			Message string `xml:"message,attr"`
		} `xml:"failure"`
	} `xml:"testcase"`
	Comments string `xml:",comment"` // node's counts: "tests 6", "fail 4", …
}

var junitFailRe = regexp.MustCompile(`(?:^|\s)fail (\d+)(?:\s|$)`)

// readJUnit reads --test-reporter=junit: a failed <testcase> under the <testsuite>s it is in
// ("suite > inner bad"; the reporter names no file), and a suite with failures, checked against
// the `<!-- fail N -->` count.
func readJUnit(lines []string, n *normaliser) ([]core.CheckFailure, bool) {
	text := strings.Join(lines, "\n")
	start, end := strings.Index(text, "<testsuites"), strings.LastIndex(text, "</testsuites>")
	if start < 0 || end < start {
		return nil, false
	}
	var root junitSuite
	if err := xml.Unmarshal([]byte(text[start:end+len("</testsuites>")]), &root); err != nil {
		return nil, false
	}
	var fs []core.CheckFailure
	var walk func(s junitSuite, path []string)
	walk = func(s junitSuite, path []string) {
		for _, c := range s.Cases {
			if c.Failure != nil {
				fs = append(fs, core.CheckFailure{ID: nodeID(n, "", append(slices.Clone(path), c.Name)), Message: n.paths(c.Failure.Message)})
			}
		}
		for _, sub := range s.Suites {
			p := append(slices.Clone(path), sub.Name)
			walk(sub, p)
			if sub.Failures > 0 {
				fs = append(fs, core.CheckFailure{ID: nodeID(n, "", p)})
			}
		}
	}
	walk(root, nil)
	m := junitFailRe.FindStringSubmatch(root.Comments)
	if m == nil {
		return fs, false
	}
	counted, _ := strconv.Atoi(m[1])
	return fs, counted == len(fs)
}

func nodeID(n *normaliser, file string, path []string) string {
	for i := range path {
		path[i] = n.file(path[i])
	}
	name := strings.Join(path, " > ")
	file = n.file(file)
	switch {
	case file == "":
		return name
	case name == file:
		return file
	}
	return file + ": " + name
}

func readTAP(lines []string, n *normaliser) ([]core.CheckFailure, bool) {
	var fs []core.CheckFailure
	var names []string // the open subtests, by depth
	counted, found := 0, false
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if m := tapFailRe.FindStringSubmatch(l); m != nil {
			counted, _ = strconv.Atoi(m[1])
			found = true
			continue
		}
		if m := tapSubtestRe.FindStringSubmatch(l); m != nil {
			depth := len(m[1]) / 4
			names = append(names[:min(depth, len(names))], m[2])
			continue
		}
		m := tapResultRe.FindStringSubmatch(l)
		if m == nil || m[2] != "not ok" || m[4] != "" {
			continue
		}
		depth := len(m[1]) / 4
		path := append([]string(nil), names[:min(depth, len(names))]...)
		path = append(path, m[3])
		// The YAML block that follows: where the test is and what it threw.
		var file, msg string
		if i+1 < len(lines) && strings.TrimSpace(lines[i+1]) == "---" {
			for j := i + 2; j < len(lines) && strings.TrimSpace(lines[j]) != "..."; j++ {
				f := yamlFieldRe.FindStringSubmatch(lines[j])
				if f == nil {
					continue
				}
				switch f[1] {
				case "location":
					file = tapLocationFile(unquoteYAML(f[2]))
				case "error":
					msg = unquoteYAML(f[2])
					if msg == "|-" || msg == "|" || msg == ">-" {
						msg = ""
						for k := j + 1; k < len(lines) && msg == ""; k++ {
							msg = strings.TrimSpace(lines[k])
						}
					}
				}
			}
		}
		fs = append(fs, core.CheckFailure{ID: nodeID(n, file, path), Message: n.paths(msg)})
	}
	return fs, found && counted == len(fs)
}

// tapLocationFile is the file of a TAP location, 'path:line:col'.
func tapLocationFile(loc string) string {
	for range 2 {
		i := strings.LastIndexByte(loc, ':')
		if i < 0 {
			break
		}
		if _, err := strconv.Atoi(loc[i+1:]); err != nil {
			break
		}
		loc = loc[:i]
	}
	return loc
}

func unquoteYAML(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
		return strings.ReplaceAll(s[1:len(s)-1], "''", "'")
	}
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
}

// readSpec reads the spec reporter: `✖ name (1.2ms)` lines nested by two spaces under `▶ suite`
// lines, then a `✖ failing tests:` section whose `test at file:line:col` lines say where each
// failed test is.
func readSpec(lines []string, n *normaliser) ([]core.CheckFailure, bool) {
	type open struct {
		indent int
		name   string
	}
	var stack []open
	var fs []core.CheckFailure
	var raw []string // each failure's line as printed, to find its file in the summary
	counted, found := 0, false
	end := len(lines)
	for i, l := range lines {
		if specFailingRe.MatchString(l) {
			end = i
			break
		}
	}
	for i := 0; i < end; i++ {
		l := lines[i]
		if m := specFailRe.FindStringSubmatch(l); m != nil {
			counted, _ = strconv.Atoi(m[1])
			found = true
			continue
		}
		if m := specSuiteRe.FindStringSubmatch(l); m != nil {
			ind := len(m[1])
			for len(stack) > 0 && stack[len(stack)-1].indent >= ind {
				stack = stack[:len(stack)-1]
			}
			stack = append(stack, open{ind, m[2]})
			continue
		}
		m := specResultRe.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		ind := len(m[1])
		for len(stack) > 0 && stack[len(stack)-1].indent > ind {
			stack = stack[:len(stack)-1]
		}
		closes := len(stack) > 0 && stack[len(stack)-1].indent == ind && stack[len(stack)-1].name == m[3]
		if closes {
			stack = stack[:len(stack)-1]
		}
		if m[2] != "✖" {
			continue
		}
		var path []string
		for _, o := range stack {
			path = append(path, o.name)
		}
		path = append(path, m[3])
		msg := ""
		for j := i + 1; j < end; j++ {
			t := strings.TrimSpace(lines[j])
			if t == "" {
				continue
			}
			if len(lines[j])-len(strings.TrimLeft(lines[j], " ")) > ind {
				msg = t
			}
			break
		}
		fs = append(fs, core.CheckFailure{ID: strings.Join(path, " > "), Message: n.paths(msg)})
		raw = append(raw, strings.TrimSpace(l))
	}
	// The summary names the file of each failed test (not of a parent that failed only
	// because a subtest did): `test at sum.test.js:4:1` then the test's line again.
	files := map[string]string{}
	for i := end + 1; i+1 < len(lines); i++ {
		if m := specTestAtRe.FindStringSubmatch(lines[i]); m != nil {
			files[strings.TrimSpace(lines[i+1])] = m[1]
		}
	}
	for i := range fs {
		path := strings.Split(fs[i].ID, " > ")
		fs[i].ID = nodeID(n, files[raw[i]], path)
	}
	return fs, found && counted == len(fs)
}

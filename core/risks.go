package core

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"reasonixctl/core/safetext"
)

// Trojan Source (CVE-2021-42574): text whose rendering differs from its bytes. A change that adds
// bidi controls, zero-width characters or identifiers mixing Latin with Cyrillic or Greek
// look-alikes is a review risk: the review names each such file and line, and finalize needs the
// supervisor to acknowledge it (acknowledged_risks).

// SourceRiskPrefix starts the id of every risk the review computes from the diff.
const SourceRiskPrefix = "trojan_source:"

// MaxAcknowledgedRisks bounds acknowledged_risks.
const MaxAcknowledgedRisks = 64

// maxSourceRisks bounds the risks the review lists of its own, the last one standing for the
// files beyond it, and maxFindingsLen the text of one after its id, so that they leave the
// review bundle (MaxBundleBytes) room for the diff.
const (
	maxSourceRisks = 16
	maxFindingsLen = 240
)

// MaxRiskLen bounds one risk's text, and so an entry of acknowledged_risks.
const MaxRiskLen = 2048

// maxRiskFindings bounds the lines one risk's text names.
const maxRiskFindings = 8

// SourceRisk is one file of the review diff whose added text hides or disguises characters.
type SourceRisk struct {
	// ID is what acknowledged_risks lists: SourceRiskPrefix and the file's path.
	ID   string `json:"id"`
	Path string `json:"path"`
	// Lines are the new-side line numbers that carry a finding; 0 stands for the file name.
	Lines []int `json:"lines"`
	// Text is the risk as the review payload's risks list shows it: the id, then each finding.
	Text string `json:"text"`
}

// hiddenFindings describes the hidden characters and mixed-script identifiers in one line of
// text, or nothing.
func hiddenFindings(s string) []string {
	var out []string
	seen := map[rune]bool{}
	for _, r := range s {
		if kind, ok := safetext.Hidden(r); ok && !seen[r] {
			seen[r] = true
			out = append(out, fmt.Sprintf("%s U+%04X", kind, r))
		}
	}
	for _, w := range MixedScriptWords(s) {
		out = append(out, "mixed-script identifier "+strconv.QuoteToASCII(w))
	}
	return out
}

// MixedScriptWords returns the words of s (runs of letters, digits and _) that mix Latin letters
// with Cyrillic or Greek ones, the look-alikes of a homoglyph attack.
func MixedScriptWords(s string) []string {
	if isASCII(s) {
		return nil
	}
	var out []string
	start := -1
	latin, other := false, false
	flush := func(end int) {
		if start >= 0 && latin && other {
			out = append(out, s[start:end])
		}
		start, latin, other = -1, false, false
	}
	for i, r := range s {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_') {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
		}
		switch {
		case unicode.Is(unicode.Latin, r):
			latin = true
		case unicode.Is(unicode.Cyrillic, r), unicode.Is(unicode.Greek, r):
			other = true
		}
	}
	flush(len(s))
	return out
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// SourceRisks scans a review diff (git's patch format) for Trojan Source: the added lines and
// the new file names, then the names given that the diff did not show. One risk per file, in
// diff order.
func SourceRisks(diff []byte, names ...string) []SourceRisk {
	var out []SourceRisk
	seen := map[string]bool{}
	var cur *SourceRisk
	var findings []string
	extra := 0
	newLine, inHunk := 0, false
	finish := func() {
		if cur == nil {
			return
		}
		if len(cur.Lines) > 0 {
			text := strings.Join(findings, "; ")
			if extra > 0 {
				text += fmt.Sprintf("; and %d more", extra)
			}
			if len(text) > maxFindingsLen {
				text = TruncateText(text, maxFindingsLen) + "…"
			}
			cur.Text = TruncateText(cur.ID+": "+text, MaxRiskLen)
			out = append(out, *cur)
		}
		cur, findings, extra = nil, nil, 0
	}
	add := func(line int, what []string) {
		if cur == nil || len(what) == 0 {
			return
		}
		cur.Lines = append(cur.Lines, line)
		if len(findings) >= maxRiskFindings {
			extra++
			return
		}
		where := "file name"
		if line > 0 {
			where = "line " + strconv.Itoa(line)
		}
		findings = append(findings, where+": "+strings.Join(what, ", "))
	}
	for len(diff) > 0 {
		var line []byte
		line, diff, _ = bytes.Cut(diff, []byte{'\n'})
		switch {
		case bytes.HasPrefix(line, []byte("diff --git ")):
			finish()
			inHunk = false
		case !inHunk && bytes.HasPrefix(line, []byte("+++ ")):
			path, ok := patchPath(string(line[4:]))
			if !ok {
				continue
			}
			cur = &SourceRisk{ID: SourceRiskPrefix + path, Path: path}
			seen[path] = true
			add(0, hiddenFindings(path))
		case bytes.HasPrefix(line, []byte("@@ ")):
			newLine, inHunk = hunkNewStart(string(line)), true
		case inHunk && len(line) > 0 && line[0] == '+':
			add(newLine, hiddenFindings(string(line[1:])))
			newLine++
		case inHunk && (len(line) == 0 || line[0] == ' '):
			newLine++
		case inHunk && (line[0] == '-' || line[0] == '\\'):
		default:
			inHunk = false
		}
	}
	finish()
	for _, name := range names {
		if !seen[name] {
			cur = &SourceRisk{ID: SourceRiskPrefix + name, Path: name}
			add(0, hiddenFindings(name))
			finish()
		}
	}
	if len(out) > maxSourceRisks {
		rest := out[maxSourceRisks-1:]
		more := SourceRisk{ID: SourceRiskPrefix + "more", Text: fmt.Sprintf("%smore: %d more files hide or disguise characters", SourceRiskPrefix, len(rest))}
		out = append(out[:maxSourceRisks-1:maxSourceRisks-1], more)
	}
	return out
}

// patchPath reads the new side of a `+++ ` line: b/<path>, possibly C-quoted; /dev/null is no
// file.
func patchPath(s string) (string, bool) {
	s = strings.TrimSuffix(s, "\t")
	if strings.HasPrefix(s, `"`) {
		u, err := strconv.Unquote(s)
		if err != nil {
			return "", false
		}
		s = u
	}
	p, ok := strings.CutPrefix(s, "b/")
	return p, ok
}

// hunkNewStart reads c from "@@ -a,b +c,d @@".
func hunkNewStart(h string) int {
	_, rest, ok := strings.Cut(h, " +")
	if !ok {
		return 0
	}
	end := strings.IndexAny(rest, ", ")
	if end < 0 {
		end = len(rest)
	}
	n, _ := strconv.Atoi(rest[:end])
	return n
}

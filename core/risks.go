package core

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"reasonixctl/core/safetext"
)

// Trojan Source (CVE-2021-42574): text whose rendering differs from its bytes. A change that adds
// hidden characters (bidi controls, zero-width and other invisible characters, outside emoji
// sequences: safetext.HiddenIn) or look-alike words (UTS #39: safetext.LookAlikes) is a review
// risk: the review names each such file and line, and finalize needs the supervisor to
// acknowledge it (acknowledged_risks).

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

// hiddenFindings describes the hidden characters and look-alike words in one line of text,
// or nothing: each hidden character once, by kind and code point ("bidi control U+202E"), a
// run of tag characters by the ASCII it spells, then each look-alike word by the ASCII
// identifier it passes for (`look-alike of "exec": "\U0001d41e…"`), and each word that mixes
// scripts.
func hiddenFindings(s string) []string {
	if isASCII(s) {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	add := func(f string) {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	// Tag characters U+E0020–U+E007E mirror ASCII: a run of them is text no one sees, which a
	// model reading the file may take for instructions.
	var tags []byte
	tagsEnd := -1
	spelt := func() {
		if len(tags) > 0 {
			add("tag characters spelling " + strconv.QuoteToASCII(TruncateText(string(tags), maxSpeltTags)))
			tags = tags[:0]
		}
	}
	safetext.HiddenIn(s, func(i int, r rune, kind string) {
		if r >= 0xE0020 && r <= 0xE007E {
			if i != tagsEnd {
				spelt()
			}
			tags = append(tags, byte(r-0xE0000))
			tagsEnd = i + utf8.RuneLen(r)
			return
		}
		spelt()
		add(fmt.Sprintf("%s U+%04X", kind, r))
	})
	spelt()
	for _, la := range safetext.LookAlikes(s) {
		word := strconv.QuoteToASCII(la.Word)
		switch {
		case la.ASCII != "" && la.Mixed:
			add(fmt.Sprintf("mixed-script look-alike of %q: %s", la.ASCII, word))
		case la.ASCII != "":
			add(fmt.Sprintf("look-alike of %q: %s", la.ASCII, word))
		default:
			add("mixed-script identifier " + word)
		}
	}
	return out
}

// maxSpeltTags bounds the text a finding shows of a run of tag characters.
const maxSpeltTags = 80

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

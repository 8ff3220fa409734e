package term

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"reasonixctl/core/safetext"
)

// A search in a text (the checks' log) finds, marks and reports its matches the way the events'
// search does: the person reads one kind of search everywhere.

// ContainsFold reports whether hay contains needle (lower case), ignoring case. ASCII is
// compared in place; other text is lowered first.
func ContainsFold[T string | []byte](hay T, needle []byte) bool {
	if len(needle) == 0 {
		return true
	}
	ascii := true
	for _, c := range needle {
		if c >= 0x80 {
			ascii = false
			break
		}
	}
	if !ascii {
		return bytes.Contains(bytes.ToLower([]byte(hay)), needle)
	}
	first := needle[0]
	upper := first
	if 'a' <= first && first <= 'z' {
		upper = first - 'a' + 'A'
	}
	for i := 0; i+len(needle) <= len(hay); i++ {
		c := hay[i]
		if c != first && c != upper {
			continue
		}
		j := 1
		for ; j < len(needle); j++ {
			h := hay[i+j]
			if 'A' <= h && h <= 'Z' {
				h += 'a' - 'A'
			}
			if h != needle[j] {
				break
			}
		}
		if j == len(needle) {
			return true
		}
	}
	return false
}

// MarkMatches renders line in base with each occurrence of needle (lower case) marked, in the
// current match's style when current.
func MarkMatches(t Theme, line string, base lipgloss.Style, needle []byte, current bool) string {
	lower := strings.ToLower(line)
	if len(lower) != len(line) {
		// Lowering changed byte lengths: offsets would not line up; leave the line plain.
		return base.Render(line)
	}
	n := string(needle)
	mark := t.Match
	if current {
		mark = t.MatchCurrent
	}
	var b strings.Builder
	from := 0
	for {
		i := strings.Index(lower[from:], n)
		if i < 0 {
			break
		}
		i += from
		if i > from {
			b.WriteString(base.Render(line[from:i]))
		}
		b.WriteString(mark.Render(line[i : i+len(n)]))
		from = i + len(n)
	}
	if from == 0 {
		return base.Render(line)
	}
	if from < len(line) {
		b.WriteString(base.Render(line[from:]))
	}
	return b.String()
}

// SearchBar is a search's line: the query being typed, or the kept search with where it is.
// active says the query has a needle; cur is the current match's index, -1 for none; scope
// says what the search does not cover.
func SearchBar(t Theme, w int, typing bool, query string, active bool, matches, cur int, wrapped bool, scope string) string {
	var where string
	switch {
	case !active:
	case matches == 0:
		where = "no match"
	case cur < 0:
		where = fmt.Sprintf("%d matches", matches)
	default:
		where = fmt.Sprintf("match %d of %d", cur+1, matches)
	}
	if wrapped && matches > 0 {
		where += " (wrapped)"
	}
	if active {
		where += scope
	}
	var line string
	if typing {
		line = " /" + query + "▏"
		if where != "" {
			line += "  " + where
		}
		line += " · enter keeps · esc goes back"
	} else {
		line = fmt.Sprintf(" /%s  %s · n/N next/previous · esc clears", query, where)
	}
	st := t.Warn
	if where == "no match" {
		st = t.Error
	}
	return st.Render(ansi.Truncate(safetext.Line(line), w, "…"))
}

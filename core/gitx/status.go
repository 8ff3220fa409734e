package gitx

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
)

// status is parsed `git status --porcelain=v2 -z [--branch]` output.
type status struct {
	head    string // HEAD commit; empty when unborn
	branch  string // checked-out branch name; empty when detached
	entries []statusEntry
}

type statusEntry struct {
	kind byte   // '1' changed, '2' renamed or copied, 'u' unmerged, '?' untracked, '!' ignored
	xy   string // index and worktree status letters ("..": none)
	path string
	orig string // source of a rename or copy
}

// staged reports a difference between HEAD and the index.
func (e statusEntry) staged() bool { return e.kind != '?' && e.kind != '!' && e.xy[0] != '.' }

// unstaged reports a difference between the index and the worktree, or an untracked file.
func (e statusEntry) unstaged() bool { return e.kind == '?' || (e.kind != '!' && e.xy[1] != '.') }

func parseStatus(out []byte) (status, error) {
	var st status
	fields := bytes.Split(out, []byte{0})
	for i := 0; i < len(fields); i++ {
		f := string(fields[i])
		if f == "" {
			continue
		}
		if v, ok := strings.CutPrefix(f, "# branch.oid "); ok {
			if v != "(initial)" {
				st.head = v
			}
			continue
		}
		if v, ok := strings.CutPrefix(f, "# branch.head "); ok {
			if v != "(detached)" {
				st.branch = v
			}
			continue
		}
		if f[0] == '#' {
			continue
		}
		var e statusEntry
		var parts []string
		switch f[0] {
		case '1':
			parts = strings.SplitN(f, " ", 9)
		case '2':
			parts = strings.SplitN(f, " ", 10)
		case 'u':
			parts = strings.SplitN(f, " ", 11)
		case '?', '!':
			if len(f) < 3 {
				return st, fmt.Errorf("status entry %q is malformed", f)
			}
			st.entries = append(st.entries, statusEntry{kind: f[0], xy: "..", path: f[2:]})
			continue
		default:
			return st, fmt.Errorf("status entry %q is of an unknown kind", f)
		}
		want := map[byte]int{'1': 9, '2': 10, 'u': 11}[f[0]]
		if len(parts) != want || len(parts[1]) != 2 {
			return st, fmt.Errorf("status entry %q is malformed", f)
		}
		e.kind, e.xy, e.path = f[0], parts[1], parts[want-1]
		if e.kind == '2' {
			i++
			if i >= len(fields) || len(fields[i]) == 0 {
				return st, fmt.Errorf("rename entry %q lacks its source path", f)
			}
			e.orig = string(fields[i])
		}
		st.entries = append(st.entries, e)
	}
	return st, nil
}

// paths returns every path the entries name, both sides of renames, sorted and unique.
func (st status) paths(keep func(statusEntry) bool) []string {
	var out []string
	for _, e := range st.entries {
		if keep != nil && !keep(e) {
			continue
		}
		out = append(out, e.path)
		if e.orig != "" {
			out = append(out, e.orig)
		}
	}
	return sortedUnique(out)
}

func sortedUnique(s []string) []string {
	sort.Strings(s)
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

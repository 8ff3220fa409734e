package guard

import (
	"strings"
	"testing"
)

// FuzzSplitCommand: the splitter never panics, never yields an empty command, and never accepts
// a line whose unquoted text redirects or substitutes.
func FuzzSplitCommand(f *testing.F) {
	for _, s := range []string{`git status`, `rg -n "a b" src | head`, `cd a && ls; cat 'x'`, `echo x > f`, `ls $(pwd)`,
		`sed -n '1,5p' a\ b`, "a\\\nb", `"unterminated`, `bash -lc 'cat x | wc -l'`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		cmds, err := splitCommand(line)
		if err != nil {
			return
		}
		for _, c := range cmds {
			if len(c) == 0 {
				t.Fatalf("%q: empty command", line)
			}
		}
		if u := unquoted(line); strings.ContainsAny(u, "<>$`()*?[]{}") {
			t.Fatalf("%q accepted with %q unquoted", line, u)
		}
	})
}

// unquoted is line without its quoted parts and escaped characters.
func unquoted(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		switch c := line[i]; c {
		case '\\':
			i++
		case '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return b.String()
			}
			i += j + 1
		case '"':
			for i++; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' {
					i++
				}
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

package review

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
)

// WhitespaceErrors finds what `git diff --check` flags in the lines a diff adds: trailing
// blanks and a space before a tab in the indent. Binary patches have no such lines.
func WhitespaceErrors(diff []byte) []string {
	var out []string
	var file string
	line := 0
	sc := bufio.NewScanner(bytes.NewReader(diff))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "+++ "):
			file = strings.TrimPrefix(strings.TrimPrefix(l, "+++ "), "b/")
		case strings.HasPrefix(l, "@@ "):
			fmt.Sscanf(l[strings.Index(l, "+")+1:], "%d", &line)
			line--
		case strings.HasPrefix(l, "+"):
			line++
			added := l[1:]
			indent := added[:len(added)-len(strings.TrimLeft(added, " \t"))]
			if strings.TrimRight(added, " \t") != added || strings.Contains(indent, " \t") {
				out = append(out, fmt.Sprintf("%s:%d", file, line))
			}
		case strings.HasPrefix(l, " "):
			line++
		}
		if len(out) >= 20 {
			break
		}
	}
	return out
}

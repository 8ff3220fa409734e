package guard

import (
	"fmt"
	"strings"
)

// Codex's apply_patch format names every file it touches in a header line.
var patchHeaders = []string{"*** Update File: ", "*** Add File: ", "*** Delete File: ", "*** Move to: "}

// patchPaths returns every path an apply_patch body writes, deletes or moves to, in order. A
// body without any file header cannot be judged and is an error.
func patchPaths(body string) ([]string, error) {
	var paths []string
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimSuffix(line, "\r")
		for _, h := range patchHeaders {
			if rest, ok := strings.CutPrefix(line, h); ok {
				p := strings.TrimSpace(rest)
				if p == "" {
					return nil, fmt.Errorf("a %q header names no file", strings.TrimSpace(h))
				}
				paths = append(paths, p)
			}
		}
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("the patch names no file (no *** Add/Update/Delete File header)")
	}
	return paths, nil
}

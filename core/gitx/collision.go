package gitx

import (
	"bytes"
	"context"
	"fmt"
	"strings"
)

// Collision is the result of a source-collision scan.
type Collision struct {
	Head           string   // the source's HEAD the scan saw
	DirtyPaths     []string // uncommitted changes in the source, both sides of renames
	CommittedPaths []string // changed by commits since the base, both sides of renames and copies
	Overlap        []string // the paths above that the task may write
	Unavailable    bool     // the source could not be read; treat as a collision
	Reason         string   // why it was unavailable
}

// Collides reports whether the task must stop: an overlap, or a scan that could not be done.
func (c Collision) Collides() bool { return c.Unavailable || len(c.Overlap) > 0 }

const scanAttempts = 3

// ScanSource lists what changed in the caller's checkout since base, uncommitted or committed,
// and which of those paths writeAllowed accepts. When HEAD moves during the scan it starts over,
// at most three times. One git process when the source is still at base, three otherwise;
// nothing is written.
func ScanSource(ctx context.Context, root, base string, writeAllowed func(path string) bool) Collision {
	if !hex40.MatchString(base) || writeAllowed == nil {
		return Collision{Unavailable: true, Reason: "scan needs a resolved base commit and a write-scope predicate"}
	}
	var last string
	for range scanAttempts {
		c, moved, err := scanOnce(ctx, root, base)
		if err != nil {
			return Collision{Unavailable: true, Reason: err.Error()}
		}
		if moved {
			last = c.Head
			continue
		}
		for _, p := range sortedUnique(append(append([]string{}, c.DirtyPaths...), c.CommittedPaths...)) {
			if writeAllowed(p) {
				c.Overlap = append(c.Overlap, p)
			}
		}
		return c
	}
	return Collision{Head: last, Unavailable: true, Reason: fmt.Sprintf("HEAD kept moving during %d scans", scanAttempts)}
}

func scanOnce(ctx context.Context, root, base string) (c Collision, moved bool, err error) {
	st, err := sourceStatus(ctx, root, true)
	if err != nil {
		return c, false, err
	}
	if st.head == "" {
		return c, false, fmt.Errorf("the source has no HEAD commit")
	}
	c.Head, c.DirtyPaths = st.head, st.paths(nil)
	if st.head == base {
		// One status read saw HEAD and the dirty paths together: nothing can have moved between
		// two reads, so the common case costs one process.
		return c, false, nil
	}
	{
		out, err := gitCmd{dir: root, args: []string{"diff", "--name-status", "-z", "--no-ext-diff",
			"--find-renames", "--find-copies", base, st.head, "--"}}.run(ctx)
		if err != nil {
			return c, false, err
		}
		if c.CommittedPaths, err = parseNameStatus(out); err != nil {
			return c, false, err
		}
	}
	out, err := gitCmd{dir: root, args: []string{"rev-parse", "--verify", "-q", "HEAD"}}.run(ctx)
	if err != nil {
		return c, false, err
	}
	return c, strings.TrimSpace(string(out)) != st.head, nil
}

// parseNameStatus reads `diff --name-status -z`: a status field, then one path, or two for
// renames (R) and copies (C).
func parseNameStatus(out []byte) ([]string, error) {
	fields := bytes.Split(bytes.TrimSuffix(out, []byte{0}), []byte{0})
	var paths []string
	for i := 0; i < len(fields); {
		st := string(fields[i])
		if st == "" {
			break
		}
		n := 1
		if st[0] == 'R' || st[0] == 'C' {
			n = 2
		}
		if i+n >= len(fields) {
			return nil, fmt.Errorf("name-status record %q lacks its paths", st)
		}
		for _, p := range fields[i+1 : i+1+n] {
			paths = append(paths, string(p))
		}
		i += 1 + n
	}
	return sortedUnique(paths), nil
}

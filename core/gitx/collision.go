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
	return ScanSourceIn(ctx, root, base, nil, writeAllowed)
}

// ScanSourceIn is ScanSource with git's status and diff limited to the given path prefixes (see
// ScopePathspec; nil scans everything), so that a scan costs in proportion to the write scope
// rather than to the checkout. The prefixes must cover every path writeAllowed accepts. A scan
// that finds a collision is repeated over the whole checkout, so that the reported dirty and
// committed paths are the same as an unlimited scan's.
func ScanSourceIn(ctx context.Context, root, base string, prefixes []string, writeAllowed func(path string) bool) Collision {
	if !hex40.MatchString(base) || writeAllowed == nil {
		return Collision{Unavailable: true, Reason: "scan needs a resolved base commit and a write-scope predicate"}
	}
	c := scan(ctx, root, base, prefixes, writeAllowed)
	if len(prefixes) > 0 && len(c.Overlap) > 0 {
		c = scan(ctx, root, base, nil, writeAllowed)
	}
	return c
}

func scan(ctx context.Context, root, base string, prefixes []string, writeAllowed func(path string) bool) Collision {
	var last string
	for range scanAttempts {
		c, moved, err := scanOnce(ctx, root, base, pathspec(prefixes))
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

// pathspec turns path prefixes into literal pathspecs: each matches the path itself and every
// path below it, as a glob-free write-scope pattern does.
func pathspec(prefixes []string) []string {
	if len(prefixes) == 0 {
		return nil
	}
	out := make([]string, len(prefixes))
	for i, p := range prefixes {
		out[i] = ":(literal)" + p
	}
	return out
}

func scanOnce(ctx context.Context, root, base string, spec []string) (c Collision, moved bool, err error) {
	args := append([]string{"status", "--porcelain=v2", "-z", "--untracked-files=all", "--branch", "--"}, spec...)
	out, err := gitCmd{at: inCheckout(root), args: args}.run(ctx)
	if err != nil {
		return c, false, err
	}
	st, err := parseStatus(out)
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
		out, err := gitCmd{at: inCheckout(root), args: append([]string{"diff", "--name-status", "-z", "--no-ext-diff",
			"--find-renames", "--find-copies", base, st.head, "--"}, spec...)}.run(ctx)
		if err != nil {
			return c, false, err
		}
		if c.CommittedPaths, err = parseNameStatus(out); err != nil {
			return c, false, err
		}
	}
	out, err = gitCmd{at: inCheckout(root), args: []string{"rev-parse", "--verify", "-q", "HEAD"}}.run(ctx)
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

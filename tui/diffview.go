package tui

import (
	"fmt"
	"strings"

	"github.com/sourcegraph/go-diff/diff"
)

// diffLine is one rendered line of the review diff. kind is 'F' (file header), '@' (hunk
// header), '+', '-', ' ' or '\\'.
type diffLine struct {
	kind byte
	text string
}

// diffFile is one file of the review diff with its lines and hunk starts (indices into lines).
type diffFile struct {
	name           string
	added, deleted int
	lines          []diffLine
	hunks          []int
}

// diffDoc is the parsed review diff; a parse failure keeps the raw text as one pseudo-file so
// the reviewer still sees everything.
type diffDoc struct {
	files []diffFile
	err   error
}

func parseReviewDiff(text string) *diffDoc {
	doc := &diffDoc{}
	if strings.TrimSpace(text) == "" {
		return doc
	}
	fds, err := diff.ParseMultiFileDiff([]byte(text))
	if err != nil {
		doc.err = err
		f := diffFile{name: "(unparsed diff)"}
		for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
			k := byte(' ')
			if l != "" && strings.ContainsRune("+-@\\", rune(l[0])) {
				k = l[0]
			}
			f.lines = append(f.lines, diffLine{kind: k, text: l})
		}
		doc.files = []diffFile{f}
		return doc
	}
	for _, fd := range fds {
		f := diffFile{name: fileName(fd)}
		st := fd.Stat()
		f.added, f.deleted = int(st.Added+st.Changed), int(st.Deleted+st.Changed)
		f.lines = append(f.lines, diffLine{kind: 'F', text: f.name + fileNote(fd)})
		for _, h := range fd.Hunks {
			f.hunks = append(f.hunks, len(f.lines))
			hdr := fmt.Sprintf("@@ -%d,%d +%d,%d @@", h.OrigStartLine, h.OrigLines, h.NewStartLine, h.NewLines)
			if h.Section != "" {
				hdr += " " + h.Section
			}
			f.lines = append(f.lines, diffLine{kind: '@', text: hdr})
			for _, l := range strings.Split(strings.TrimSuffix(string(h.Body), "\n"), "\n") {
				k := byte(' ')
				if l != "" {
					k = l[0]
				}
				f.lines = append(f.lines, diffLine{kind: k, text: strings.ReplaceAll(l, "\t", "    ")})
			}
		}
		if len(fd.Hunks) == 0 {
			f.lines = append(f.lines, diffLine{kind: ' ', text: "(no text changes: " + strings.Join(fd.Extended, "; ") + ")"})
		}
		doc.files = append(doc.files, f)
	}
	return doc
}

func fileName(fd *diff.FileDiff) string {
	name := fd.NewName
	if name == "/dev/null" || name == "" {
		name = fd.OrigName
	}
	name = strings.TrimPrefix(strings.TrimPrefix(name, "b/"), "a/")
	if name == "" {
		// Binary or mode-only changes have no ---/+++ lines; take the name from the git header.
		for _, e := range fd.Extended {
			if rest, ok := strings.CutPrefix(e, "diff --git "); ok {
				if i := strings.Index(rest, " b/"); i >= 0 {
					return rest[i+3:]
				}
			}
		}
	}
	return name
}

func fileNote(fd *diff.FileDiff) string {
	switch {
	case fd.OrigName == "/dev/null":
		return " (new)"
	case fd.NewName == "/dev/null":
		return " (deleted)"
	}
	return ""
}

// diffCursor is a reader's position in a task's diff: the file shown and its first visible line.
type diffCursor struct {
	file, top int
}

// clamp keeps the cursor inside the diff. top may point below the last full page (a hunk near
// the end of a short file); the view then shows the last page with that hunk as the current one.
func (d *diffDoc) clamp(c diffCursor) diffCursor {
	if len(d.files) == 0 {
		return diffCursor{}
	}
	c.file = clampInt(c.file, 0, len(d.files)-1)
	c.top = clampInt(c.top, 0, max(len(d.files[c.file].lines)-1, 0))
	return c
}

// maxTop is the first line of the last full page of a file.
func (d *diffDoc) maxTop(c diffCursor, height int) int {
	if len(d.files) == 0 {
		return 0
	}
	return max(len(d.files[c.file].lines)-height, 0)
}

// nextHunk moves to the next hunk start below the top line, crossing into the next file.
func (d *diffDoc) nextHunk(c diffCursor) diffCursor {
	if len(d.files) == 0 {
		return c
	}
	for _, h := range d.files[c.file].hunks {
		if h > c.top {
			return diffCursor{c.file, h}
		}
	}
	if c.file+1 < len(d.files) {
		return diffCursor{c.file + 1, firstHunk(d.files[c.file+1])}
	}
	return c
}

// prevHunk moves to the last hunk start above the top line, crossing into the previous file.
func (d *diffDoc) prevHunk(c diffCursor) diffCursor {
	if len(d.files) == 0 {
		return c
	}
	hs := d.files[c.file].hunks
	for i := len(hs) - 1; i >= 0; i-- {
		if hs[i] < c.top {
			return diffCursor{c.file, hs[i]}
		}
	}
	if c.file > 0 {
		f := d.files[c.file-1]
		if len(f.hunks) > 0 {
			return diffCursor{c.file - 1, f.hunks[len(f.hunks)-1]}
		}
		return diffCursor{c.file - 1, 0}
	}
	return diffCursor{c.file, 0}
}

func firstHunk(f diffFile) int {
	if len(f.hunks) > 0 {
		return f.hunks[0]
	}
	return 0
}

// hunkIndex is the 1-based number of the hunk containing the top line (0 above the first).
func (f diffFile) hunkIndex(top int) int {
	n := 0
	for i, h := range f.hunks {
		if h <= top {
			n = i + 1
		}
	}
	return n
}

func clampInt(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

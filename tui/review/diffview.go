package review

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/sourcegraph/go-diff/diff"

	"reasonixctl/core/safetext"
	"reasonixctl/tui/term"
)

// diffLine is one line of the review diff. kind is 'F' (file header), '@' (hunk header), '+',
// '-', ' ', '\\' (no newline at end of file) or 'i' (a note about the file: binary, collapsed).
// For code lines text is the code without its +/-/space prefix, tabs expanded.
type diffLine struct {
	kind         byte
	text         string
	oldNo, newNo int32 // line numbers on each side, 0 where the line has none
	pair         int32 // the changed line this one pairs with for word emphasis, -1 if none
}

// diffFile is one file of the review diff with its lines and hunk starts (indices into lines).
// A file too large to read at a glance, or a generated one, shows only its stats until opened:
// lines/hunks then hold the short form and full/fullHunks the whole file.
type diffFile struct {
	name, oldName  string
	added, deleted int
	labels         []string // new, deleted, renamed from …, mode …, binary, generated
	generated      bool
	lines          []diffLine
	hunks          []int
	full           []diffLine
	fullHunks      []int
	collapsed      bool
	numW           int // digits of the largest line number
}

// collapseOver is the number of changed lines above which a file opens collapsed.
const collapseOver = 2000

// diffDoc is the parsed review diff; a parse failure keeps the raw text as one pseudo-file so
// the reviewer still sees everything.
type diffDoc struct {
	files  []diffFile
	err    error
	caches map[int]*lineCache
	lower  [][]string // each file's lines lower-cased, for the search; built on first use
}

func parseReviewDiff(text string) *diffDoc {
	doc := &diffDoc{}
	if strings.TrimSpace(text) == "" {
		return doc
	}
	fds, err := diff.ParseMultiFileDiff([]byte(text))
	if err != nil {
		doc.err = err
		f := diffFile{name: "(unparsed diff)", numW: 1}
		for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
			k := byte(' ')
			if l != "" && strings.ContainsRune("+-@\\", rune(l[0])) {
				k = l[0]
			}
			f.lines = append(f.lines, diffLine{kind: k, text: safetext.Sanitize(l), pair: -1})
		}
		doc.files = []diffFile{f}
		return doc
	}
	for _, fd := range fds {
		doc.files = append(doc.files, buildFile(fd))
	}
	return doc
}

func buildFile(fd *diff.FileDiff) diffFile {
	f := diffFile{name: fileName(fd), oldName: strings.TrimPrefix(fd.OrigName, "a/")}
	st := fd.Stat()
	f.added, f.deleted = int(st.Added+st.Changed), int(st.Deleted+st.Changed)
	f.labels = fileLabels(fd, f.name)
	f.generated = generatedName(f.name)
	header := diffLine{kind: 'F', text: safetext.Line(f.name), pair: -1}
	if len(f.labels) > 0 {
		header.text += "  [" + strings.Join(f.labels, ", ") + "]"
	}
	f.lines = append(f.lines, header)
	maxNo := int32(1)
	for _, h := range fd.Hunks {
		f.hunks = append(f.hunks, len(f.lines))
		hdr := fmt.Sprintf("@@ -%d,%d +%d,%d @@", h.OrigStartLine, h.OrigLines, h.NewStartLine, h.NewLines)
		if h.Section != "" {
			hdr += " " + safetext.Line(h.Section)
		}
		f.lines = append(f.lines, diffLine{kind: '@', text: hdr, pair: -1})
		oldNo, newNo := h.OrigStartLine, h.NewStartLine
		for _, l := range strings.Split(strings.TrimSuffix(string(h.Body), "\n"), "\n") {
			k := byte(' ')
			if l != "" {
				k = l[0]
				l = l[1:]
			}
			dl := diffLine{kind: k, text: safetext.Sanitize(l), pair: -1}
			switch k {
			case '-':
				dl.oldNo = oldNo
				oldNo++
			case '+':
				dl.newNo = newNo
				newNo++
			case '\\':
				dl.text = "\\" + safetext.Sanitize(l)
			default:
				dl.kind = ' '
				dl.oldNo, dl.newNo = oldNo, newNo
				oldNo++
				newNo++
			}
			f.lines = append(f.lines, dl)
		}
		pairRuns(f.lines, f.hunks[len(f.hunks)-1])
		maxNo = max(maxNo, oldNo, newNo)
		if !f.generated && h.NewStartLine <= 1 && generatedHeader(f.lines[f.hunks[len(f.hunks)-1]:]) {
			f.generated = true
			f.labels = append(f.labels, "generated")
			f.lines[0].text = safetext.Line(f.name) + "  [" + strings.Join(f.labels, ", ") + "]"
		}
	}
	f.numW = len(strconv.Itoa(int(maxNo)))
	if len(fd.Hunks) == 0 {
		note := "no text changes"
		if hasBinary(fd) {
			note = "binary file: contents not shown"
		}
		f.lines = append(f.lines, diffLine{kind: 'i', text: "(" + note + ")", pair: -1})
	}
	if f.generated || f.added+f.deleted > collapseOver {
		f.collapse()
	}
	return f
}

// pairRuns pairs the lines of each run of removed lines with the run of added lines right
// after it, for word emphasis: each removed line, in order, takes the most similar added line
// after the previous pair, when they share at least half their words.
func pairRuns(lines []diffLine, from int) {
	for i := from; i < len(lines); {
		if lines[i].kind != '-' {
			i++
			continue
		}
		d := i
		for i < len(lines) && (lines[i].kind == '-' || lines[i].kind == '\\') {
			i++
		}
		a := i
		for i < len(lines) && (lines[i].kind == '+' || lines[i].kind == '\\') {
			i++
		}
		pairRun(lines, d, a, i)
	}
}

// maxPairWork bounds the similarity comparisons of one run; larger runs pair in order.
const maxPairWork = 2500

func pairRun(lines []diffLine, d, a, e int) {
	if (a-d)*(e-a) > maxPairWork {
		for j, k := d, a; j < a && k < e; j, k = j+1, k+1 {
			if lines[j].kind == '-' && lines[k].kind == '+' {
				lines[j].pair, lines[k].pair = int32(k), int32(j)
			}
		}
		return
	}
	next := a
	for j := d; j < a; j++ {
		if lines[j].kind != '-' {
			continue
		}
		best, bestSim := -1, 0.5
		for k := next; k < e; k++ {
			if lines[k].kind != '+' {
				continue
			}
			if s := similarity(lines[j].text, lines[k].text); s >= bestSim {
				best, bestSim = k, s
			}
		}
		if best >= 0 {
			lines[j].pair, lines[best].pair = int32(best), int32(j)
			next = best + 1
		}
	}
}

// similarity is the share of words two lines have in common (ignoring spaces), 0..1.
func similarity(a, b string) float64 {
	if len(a) > maxLexLine || len(b) > maxLexLine {
		return 0 // too long to compare cheaply, and never word-emphasised
	}
	count := map[string]int{}
	na, nb := 0, 0
	for _, w := range wordsOf(a) {
		if s := a[w.from:w.to]; strings.TrimSpace(s) != "" {
			count[s]++
			na++
		}
	}
	common := 0
	for _, w := range wordsOf(b) {
		if s := b[w.from:w.to]; strings.TrimSpace(s) != "" {
			nb++
			if count[s] > 0 {
				count[s]--
				common++
			}
		}
	}
	if na == 0 && nb == 0 {
		return 1
	}
	return float64(2*common) / float64(na+nb)
}

// collapse swaps in the short form: the header and the file's stats.
func (f *diffFile) collapse() {
	if f.collapsed {
		return
	}
	why := "large file"
	if f.generated {
		why = "generated file"
	}
	f.full, f.fullHunks = f.lines, f.hunks
	f.lines = []diffLine{f.full[0], {kind: 'i', pair: -1,
		text: fmt.Sprintf("(%s collapsed: +%d -%d in %d hunks; enter shows it)", why, f.added, f.deleted, len(f.fullHunks))}}
	f.hunks = nil
	f.collapsed = true
}

// expand shows a collapsed file whole.
func (f *diffFile) expand() {
	if !f.collapsed {
		return
	}
	f.lines, f.hunks = f.full, f.fullHunks
	f.full, f.fullHunks = nil, nil
	f.collapsed = false
}

// generatedNames are files tools write, which a reviewer reads only when they mean to.
var generatedNames = map[string]bool{
	"go.sum": true, "package-lock.json": true, "yarn.lock": true, "pnpm-lock.yaml": true,
	"Cargo.lock": true, "poetry.lock": true, "Gemfile.lock": true, "composer.lock": true,
	"npm-shrinkwrap.json": true, "bun.lockb": true, "uv.lock": true,
}

func generatedName(name string) bool {
	base := path.Base(name)
	return generatedNames[base] || strings.HasSuffix(base, ".pb.go") || strings.HasSuffix(base, ".pb.gw.go") ||
		strings.HasSuffix(base, "_pb2.py") || strings.HasSuffix(base, ".min.js")
}

// generatedHeader reports a "Code generated … DO NOT EDIT." line (the Go convention, which
// other generators follow) among the first lines of a file's first hunk.
func generatedHeader(lines []diffLine) bool {
	for i, l := range lines {
		if i > 12 {
			break
		}
		if (l.kind == '+' || l.kind == ' ') && strings.Contains(l.text, "Code generated") && strings.Contains(l.text, "DO NOT EDIT") {
			return true
		}
	}
	return false
}

func hasBinary(fd *diff.FileDiff) bool {
	for _, e := range fd.Extended {
		if e == "GIT binary patch" || (strings.HasPrefix(e, "Binary files ") && strings.HasSuffix(e, " differ")) {
			return true
		}
	}
	return false
}

// fileLabels names what kind of change a file is, beyond its lines.
func fileLabels(fd *diff.FileDiff, name string) []string {
	var out []string
	var oldMode, newMode, renameFrom string
	for _, e := range fd.Extended {
		switch {
		case strings.HasPrefix(e, "new file mode "):
			out = append(out, "new")
		case strings.HasPrefix(e, "deleted file mode "):
			out = append(out, "deleted")
		case strings.HasPrefix(e, "old mode "):
			oldMode = strings.TrimPrefix(e, "old mode ")
		case strings.HasPrefix(e, "new mode "):
			newMode = strings.TrimPrefix(e, "new mode ")
		case strings.HasPrefix(e, "rename from "):
			renameFrom = strings.TrimPrefix(e, "rename from ")
		}
	}
	if len(out) == 0 {
		switch {
		case fd.OrigName == "/dev/null":
			out = append(out, "new")
		case fd.NewName == "/dev/null":
			out = append(out, "deleted")
		}
	}
	if renameFrom != "" {
		out = append(out, "renamed from "+safetext.Line(renameFrom))
	}
	if oldMode != "" && newMode != "" {
		out = append(out, "mode "+safetext.Line(oldMode)+" → "+safetext.Line(newMode))
	}
	if hasBinary(fd) {
		out = append(out, "binary")
	}
	if generatedName(name) {
		out = append(out, "generated")
	}
	return out
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
	c.file = term.Clamp(c.file, 0, len(d.files)-1)
	c.top = term.Clamp(c.top, 0, max(len(d.files[c.file].lines)-1, 0))
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

// hunkStart is the index of the hunk header of the hunk holding line i, or -1.
func (f *diffFile) hunkStart(i int) int {
	start := -1
	for _, h := range f.hunks {
		if h <= i {
			start = h
		}
	}
	return start
}

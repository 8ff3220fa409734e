package gitx

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Git calls a file binary when either side of its change has a NUL in its first 8,000 bytes,
// and its patch then shows no line: one NUL in a script would keep every line after it from
// the reviewer, while the committed file still runs. So the review shows such a file as text
// when it reads as text (mostly text, or text before the change), and records what it knows of
// every other one (BinaryFacts) for the review to list as a risk.
//
// The rule for "shown as text": both sides of the change are at most MaxTextShownBytes and the
// new content
//   - is mostly text: at most one byte in a hundred is outside valid UTF-8, and there are at
//     least ten other characters for each run of NUL or other control bytes (C0 but tab, line
//     feed, carriage return and form feed, and DEL) — padding of any length is one run, while
//     data made of scattered control bytes fails; or
//   - starts with a UTF-16 byte order mark (and has an even length): text in another encoding,
//     shown byte by byte; or
//   - replaces a file git called text (no NUL in its first 8,000 bytes): the worker turned a
//     text file into a binary one; or
//   - is text to git itself, only the old content being binary.
//
// The lines of a file shown as text reach the review's diff with their NUL and control bytes
// as they are, for every reader's sanitizer to make them visible.

// MaxTextShownBytes bounds each side of a binary file the review reads and shows as text.
const MaxTextShownBytes = 4 << 20

// maxBinaryReadBytes bounds what one review reads of binary files to decide (both sides), and
// maxTextShownFiles the binary files it shows as text (each one a pattern that git matches every
// changed path against in the second diff): beyond, a file keeps its binary patch.
const (
	maxBinaryReadBytes = 32 << 20
	maxTextShownFiles  = 64
)

// gitBinaryPrefix is how many bytes git looks at for a NUL to call a file binary.
const gitBinaryPrefix = 8000

// MaxControlLines bounds the lines BinaryFacts names.
const MaxControlLines = 8

// Why the review shows a file git calls binary as text (BinaryFacts.AsText), or why not.
const (
	ShownMostlyText = "mostly text"
	ShownWasText    = "was text"
	ShownUTF16      = "utf-16"
	ShownNowText    = "now text"  // only the old content was binary: the file git calls text now
	NotShownBinary  = "binary"    // the content is not text by the rule above
	NotShownLarge   = "too large" // a side is over MaxTextShownBytes
	NotShownBudget  = "budget"    // the review read its fill of binary files before this one
)

// BinaryFacts is what the review learnt of a file git calls binary.
type BinaryFacts struct {
	Size    int64 // bytes of the new content; -1 when the file is deleted or not measured
	OldSize int64 // bytes of the old content; -1 when the file is new or not measured
	// AsText is set when the review's patch shows the file's lines; Why is one of the Shown*
	// reasons then, a NotShown* one otherwise (empty for a deletion).
	AsText bool
	Why    string
	// Controls counts the NUL and other control bytes of the new content of a file shown as
	// text; ControlLines are the first MaxControlLines lines (1-based) holding one, and
	// MoreControlLines how many further lines do.
	Controls         int
	ControlLines     []int
	MoreControlLines int
}

// isControl reports the bytes the rule counts as control bytes.
func isControl(c byte) bool {
	return c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' || c == 0x7f
}

// textShape applies the rule's content tests to b (see the top of this file).
func textShape(b []byte) (why string, ok bool) {
	if len(b) >= 2 && len(b)%2 == 0 && (b[0] == 0xff && b[1] == 0xfe || b[0] == 0xfe && b[1] == 0xff) {
		return ShownUTF16, true
	}
	invalid, runs, text := 0, 0, 0
	inRun := false
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if isControl(c) {
				if !inRun {
					runs++
				}
				inRun = true
			} else {
				text++
				inRun = false
			}
			i++
			continue
		}
		inRun = false
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			invalid++
		} else {
			text++
		}
		i += n
	}
	if invalid*100 <= len(b) && text >= 10*runs {
		return ShownMostlyText, true
	}
	return NotShownBinary, false
}

// gitText reports whether git calls content text: no NUL in its first 8,000 bytes.
func gitText(b []byte) bool {
	return bytes.IndexByte(b[:min(len(b), gitBinaryPrefix)], 0) < 0
}

// countControls fills the control counts of facts from the new content.
func countControls(b []byte, facts *BinaryFacts) {
	line, last := 1, 0
	for _, c := range b {
		if c == '\n' {
			line++
			continue
		}
		if !isControl(c) {
			continue
		}
		facts.Controls++
		if line == last {
			continue
		}
		last = line
		if len(facts.ControlLines) < MaxControlLines {
			facts.ControlLines = append(facts.ControlLines, line)
		} else {
			facts.MoreControlLines++
		}
	}
}

var zeroHash = strings.Repeat("0", 40)

// regularBlob reports whether a side of a change is a file's content (not a symlink, a gitlink
// or nothing).
func regularBlob(mode, hash string) bool {
	return (mode == ModeFile || mode == ModeExec) && hash != zeroHash && hex40.MatchString(hash)
}

// lookAtBinaries sets BinaryFacts on the files git calls binary (Binary, from the numstat) and
// decides which the review shows as text; it returns their paths. It costs nothing when no file
// is binary; otherwise one cat-file for the sizes and, when some are small enough to read, one
// more for their contents, read one at a time and bounded by maxBinaryReadBytes in all.
func lookAtBinaries(ctx context.Context, commonDir string, files []FileChange) ([]string, error) {
	var idx []int
	var hashes []string
	for i := range files {
		f := &files[i]
		if !f.Binary {
			continue
		}
		f.BinaryFacts = &BinaryFacts{Size: -1, OldSize: -1}
		if !regularBlob(f.NewMode, f.NewHash) {
			continue // deleted, or no longer a file: nothing of it is committed to read
		}
		idx = append(idx, i)
		hashes = append(hashes, f.NewHash)
		if regularBlob(f.OldMode, f.OldHash) {
			hashes = append(hashes, f.OldHash)
		}
	}
	if len(hashes) == 0 {
		return nil, nil
	}
	sizes, err := blobSizes(ctx, commonDir, hashes)
	if err != nil {
		return nil, err
	}
	// Which files to read, and in what order: each one's old side (if any) before its new one,
	// so that a file is decided as soon as its new content arrives and nothing is kept longer.
	type pending struct {
		file int
		old  bool
	}
	var reads []string
	var plan []pending
	budget, planned := int64(maxBinaryReadBytes), 0
	for _, i := range idx {
		f := &files[i]
		b := f.BinaryFacts
		hasOld := regularBlob(f.OldMode, f.OldHash)
		b.Size = sizeOr(sizes, f.NewHash)
		if hasOld {
			b.OldSize = sizeOr(sizes, f.OldHash)
		}
		need := max(b.Size, 0) + max(b.OldSize, 0)
		switch {
		case b.Size < 0 || b.Size > MaxTextShownBytes || b.OldSize > MaxTextShownBytes:
			b.Why = NotShownLarge
		case need > budget || planned == maxTextShownFiles:
			b.Why = NotShownBudget
		default:
			budget -= need
			planned++
			if hasOld {
				reads = append(reads, f.OldHash)
				plan = append(plan, pending{file: i, old: true})
			}
			reads = append(reads, f.NewHash)
			plan = append(plan, pending{file: i})
		}
	}
	var shown []string
	k := 0
	wasText := false
	err = ReadObjects(ctx, commonDir, reads, MaxTextShownBytes, func(o Object) error {
		p := plan[k]
		k++
		if o.Type != "blob" || o.Content == nil {
			return fmt.Errorf("cat-file: %s is a %s of %d bytes, not the blob measured", o.Hash, o.Type, o.Size)
		}
		if p.old {
			wasText = gitText(o.Content)
			return nil
		}
		f := &files[p.file]
		b := f.BinaryFacts
		why, ok := textShape(o.Content)
		switch {
		case gitText(o.Content):
			why, ok = ShownNowText, true
		case !ok && wasText:
			why, ok = ShownWasText, true
		}
		wasText = false
		b.Why = why
		if ok {
			b.AsText = true
			countControls(o.Content, b)
			shown = append(shown, f.Path)
		}
		return nil
	})
	if err != nil {
		return nil, wrap(CodeInternal, ReasonGitFailed, err)
	}
	return shown, nil
}

func sizeOr(sizes map[string]int64, hash string) int64 {
	if s, ok := sizes[hash]; ok {
		return s
	}
	return -1
}

// blobSizes asks one `cat-file --batch-check` for the size of each object; a missing one is
// left out.
func blobSizes(ctx context.Context, commonDir string, hashes []string) (map[string]int64, error) {
	out, err := gitCmd{at: inRepository(commonDir), args: []string{"cat-file", "--batch-check"},
		stdin: []byte(strings.Join(hashes, "\n") + "\n")}.must(ctx, CodeInternal, ReasonGitFailed)
	if err != nil {
		return nil, err
	}
	sizes := make(map[string]int64, len(hashes))
	for _, l := range lines(out) {
		f := strings.Fields(l)
		if len(f) != 3 {
			continue // "<name> missing"
		}
		n, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || n < 0 {
			return nil, newErr(CodeInternal, ReasonGitFailed, "cat-file --batch-check returned %q", l)
		}
		sizes[f[0]] = n
	}
	return sizes, nil
}

// textAttributes is the view's info/attributes with the `diff` attribute set on each path: git
// then diffs those files as text whatever bytes they hold. Each pattern is anchored at the top
// and C-quoted, its glob characters escaped, so that it matches that one path whatever its name
// holds (spaces, quotes, control characters, bytes outside UTF-8).
func textAttributes(paths []string) []byte {
	var b bytes.Buffer
	b.WriteString(neutralAttributes)
	for _, p := range paths {
		b.WriteString(`"/`)
		for i := 0; i < len(p); i++ {
			c := p[i]
			switch {
			case c == '*' || c == '?' || c == '[' || c == '\\':
				b.WriteString(`\\`) // a backslash for the glob, escaped for the quoting
				if c == '\\' {
					b.WriteString(`\\`)
				} else {
					b.WriteByte(c)
				}
			case c == '"':
				b.WriteString(`\"`)
			case c < 0x20 || c >= 0x7f:
				fmt.Fprintf(&b, `\%03o`, c)
			default:
				b.WriteByte(c)
			}
		}
		b.WriteString("\" diff\n")
	}
	return b.Bytes()
}

// setTextAttributes writes textAttributes into the view. The view of the next transaction that
// takes this folder starts from neutralAttributes again (newView).
func (v view) setTextAttributes(paths []string) error {
	if err := os.WriteFile(filepath.Join(v.gitDir, "info", "attributes"), textAttributes(paths), 0o600); err != nil {
		return &Error{Code: CodeInternal, Reason: ReasonGitFailed, Message: "private git directory", Err: err}
	}
	return nil
}

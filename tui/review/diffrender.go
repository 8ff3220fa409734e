package review

import (
	"reasonixctl/tui/term"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/alecthomas/chroma/v2"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// A diff page is drawn from three lazily computed layers, cached on the diffDoc: the file's
// lexer, each visible line's syntax tokens (tokenised a page at a time, never the whole diff)
// and the word emphasis of changed line pairs. Scrolling back to a page already seen costs
// only the drawing.

// seg is a run of code with one syntax token type.
type seg struct {
	text string
	tt   chroma.TokenType
}

// span is a byte range of a line's text.
type span struct{ from, to int }

// lineCache is what has been worked out for one file's lines.
type lineCache struct {
	lexer    chroma.Lexer
	lexed    bool
	segs     map[int][]seg
	emph     map[int][]span
	cached   int
	sbs      []sbsRow // side-by-side rows, built on first use
	rowOfIdx []int32
}

// hlCacheMax bounds the highlighted lines kept per file; past it the file starts over.
const hlCacheMax = 20000

// maxLexLine is the longest line that is tokenised; longer ones are drawn plain.
const maxLexLine = 2000

func (d *diffDoc) cache(file int) *lineCache {
	if d.caches == nil {
		d.caches = map[int]*lineCache{}
	}
	c := d.caches[file]
	if c == nil {
		c = &lineCache{segs: map[int][]seg{}, emph: map[int][]span{}}
		d.caches[file] = c
	}
	return c
}

// lexerFor picks a lexer by file name; nil means plain text.
func (c *lineCache) lexerFor(name string) chroma.Lexer {
	if !c.lexed {
		c.lexed = true
		c.lexer = lexerByName(name)
	}
	return c.lexer
}

// highlight makes sure lines [from, to) of file i have their syntax tokens. Each side of the
// diff is tokenised as one text (context and added lines as the new file, the removed lines as
// the old one), starting a little above the page inside its hunk so that a page opening inside
// a comment or string still reads right.
func (d *diffDoc) highlight(i, from, to int, plain bool) *lineCache {
	f := &d.files[i]
	c := d.cache(i)
	to = min(to, len(f.lines))
	missing := false
	for j := from; j < to; j++ {
		if k := f.lines[j].kind; k == '+' || k == '-' || k == ' ' {
			if _, ok := c.segs[j]; !ok {
				missing = true
				break
			}
		}
	}
	if !missing {
		return c
	}
	if c.cached > hlCacheMax {
		c.segs, c.emph, c.cached = map[int][]seg{}, map[int][]span{}, 0
	}
	start := from
	if h := f.hunkStart(from); h >= 0 {
		start = max(h+1, from-100)
	}
	lx := c.lexerFor(f.name)
	if plain || lx == nil {
		for j := start; j < to; j++ {
			if k := f.lines[j].kind; k == '+' || k == '-' || k == ' ' {
				c.segs[j] = []seg{{text: f.lines[j].text, tt: chroma.Text}}
				c.cached++
			}
		}
		return c
	}
	for _, side := range []byte{'+', '-'} {
		var idx []int
		var b strings.Builder
		for j := start; j < to; j++ {
			k := f.lines[j].kind
			if len(f.lines[j].text) > maxLexLine && (k == side || (k == ' ' && side == '+')) {
				// Minified or generated lines: regex lexing is slow on them and they read no better.
				c.segs[j] = []seg{{text: f.lines[j].text, tt: chroma.Text}}
				c.cached++
				continue
			}
			if k == side || (k == ' ' && side == '+') {
				idx = append(idx, j)
				b.WriteString(f.lines[j].text)
				b.WriteByte('\n')
			}
		}
		if len(idx) == 0 {
			continue
		}
		lines := tokenLines(lx, b.String(), len(idx))
		for n, j := range idx {
			c.segs[j] = lines[n]
			c.cached++
		}
	}
	return c
}

// tokenLines tokenises text and splits the tokens into n lines.
func tokenLines(lx chroma.Lexer, text string, n int) [][]seg {
	out := make([][]seg, n)
	it, err := lx.Tokenise(nil, text)
	if err != nil {
		lines := strings.Split(text, "\n")
		for i := range out {
			out[i] = []seg{{text: lines[i], tt: chroma.Text}}
		}
		return out
	}
	ln := 0
	for tok := it(); tok != chroma.EOF; tok = it() {
		v := tok.Value
		for v != "" && ln < n {
			nl := strings.IndexByte(v, '\n')
			if nl < 0 {
				out[ln] = append(out[ln], seg{text: v, tt: tok.Type})
				break
			}
			if nl > 0 {
				out[ln] = append(out[ln], seg{text: v[:nl], tt: tok.Type})
			}
			ln++
			v = v[nl+1:]
		}
	}
	return out
}

// emphasis returns the spans of line j that differ from its paired line, word by word; none
// when the pair has too little in common for the difference to be worth marking.
func (d *diffDoc) emphasis(i, j int) []span {
	f := &d.files[i]
	l := f.lines[j]
	if l.pair < 0 {
		return nil
	}
	c := d.cache(i)
	if s, ok := c.emph[j]; ok {
		return s
	}
	p := int(l.pair)
	oldText, newText := f.lines[j].text, f.lines[p].text
	if l.kind == '+' {
		oldText, newText = newText, oldText
	}
	a, b := wordDiff(oldText, newText)
	if l.kind == '+' {
		c.emph[j], c.emph[p] = b, a
	} else {
		c.emph[j], c.emph[p] = a, b
	}
	return c.emph[j]
}

// words splits s into words, runs of spaces and single punctuation characters, as byte offsets.
func wordsOf(s string) []span {
	var out []span
	class := func(r rune) int {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_':
			return 1
		case unicode.IsSpace(r):
			return 2
		}
		return 3
	}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		k := class(r)
		j := i + n
		if k != 3 {
			for j < len(s) {
				r2, n2 := utf8.DecodeRuneInString(s[j:])
				if class(r2) != k {
					break
				}
				j += n2
			}
		}
		out = append(out, span{i, j})
		i = j
	}
	return out
}

// maxWords bounds the word diff (quadratic in the words of a line pair).
const maxWords = 300

// wordDiff is the words of a and b outside their longest common subsequence, merged into spans.
func wordDiff(a, b string) (sa, sb []span) {
	if len(a) > maxLexLine || len(b) > maxLexLine {
		return nil, nil
	}
	wa, wb := wordsOf(a), wordsOf(b)
	if len(wa) == 0 || len(wb) == 0 || len(wa) > maxWords || len(wb) > maxWords {
		return nil, nil
	}
	// lcs[i][j] is the LCS length of wa[i:] and wb[j:].
	w := len(wb) + 1
	lcs := make([]int32, (len(wa)+1)*w)
	for i := len(wa) - 1; i >= 0; i-- {
		for j := len(wb) - 1; j >= 0; j-- {
			if a[wa[i].from:wa[i].to] == b[wb[j].from:wb[j].to] {
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			} else {
				lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
			}
		}
	}
	common := 0
	keepA, keepB := make([]bool, len(wa)), make([]bool, len(wb))
	for i, j := 0, 0; i < len(wa) && j < len(wb); {
		switch {
		case a[wa[i].from:wa[i].to] == b[wb[j].from:wb[j].to]:
			keepA[i], keepB[j] = true, true
			if strings.TrimSpace(a[wa[i].from:wa[i].to]) != "" {
				common += wa[i].to - wa[i].from
			}
			i++
			j++
		case lcs[(i+1)*w+j] >= lcs[i*w+j+1]:
			i++
		default:
			j++
		}
	}
	// Mostly different lines are a rewrite: marking nearly every word says nothing.
	if nonSpace := max(len(strings.TrimSpace(a)), len(strings.TrimSpace(b))); nonSpace == 0 || common*10 < nonSpace*3 {
		return nil, nil
	}
	return merge(wa, keepA), merge(wb, keepB)
}

func merge(ws []span, keep []bool) []span {
	var out []span
	for i, s := range ws {
		if keep[i] {
			continue
		}
		if n := len(out); n > 0 && out[n-1].to == s.from {
			out[n-1].to = s.to
			continue
		}
		out = append(out, s)
	}
	return out
}

// ---- styles ----

// Backgrounds of code lines.
const (
	bgNone = iota
	bgAdd
	bgDel
	bgAddEmph
	bgDelEmph
	bgMatch // the search's query in a line
	bgCount
)

// diffStyles is the diff's palette: the syntax style matching the theme (light, dark or none
// for NO_COLOR) and the line backgrounds, with rendered styles cached per token type.
type diffStyles struct {
	mono   bool
	syntax *chroma.Style
	bg     [bgCount]lipgloss.Style
	gutter lipgloss.Style
	cursor lipgloss.Style
	note   lipgloss.Style
	memo   map[[2]int]wrap
}

// wrap is a style rendered once: the escape sequences before and after a text. Drawing a
// token is then two string copies instead of a lipgloss render and a colour conversion.
type wrap struct{ pre, post string }

func wrapOf(st lipgloss.Style) wrap {
	const mark = "\x00"
	r := st.Render(mark)
	i := strings.Index(r, mark)
	if i < 0 {
		return wrap{}
	}
	return wrap{r[:i], r[i+len(mark):]}
}

func newDiffStyles(t term.Theme, mono, dark bool) *diffStyles {
	s := &diffStyles{mono: mono, memo: map[[2]int]wrap{}, gutter: t.Dim, cursor: t.Selected, note: t.Warn}
	plain := lipgloss.NewStyle()
	switch {
	case mono:
		s.bg = [bgCount]lipgloss.Style{plain, plain, plain, plain.Reverse(true), plain.Reverse(true), plain.Reverse(true).Underline(true)}
	case dark:
		s.syntax = darkSyntax()
		s.bg = [bgCount]lipgloss.Style{plain, plain.Background(lipgloss.Color("22")), plain.Background(lipgloss.Color("52")),
			plain.Background(lipgloss.Color("28")), plain.Background(lipgloss.Color("88")),
			plain.Background(lipgloss.Color("220")).Foreground(lipgloss.Color("16"))}
	default:
		s.syntax = lightSyntax()
		s.bg = [bgCount]lipgloss.Style{plain, plain.Background(lipgloss.Color("194")), plain.Background(lipgloss.Color("224")),
			plain.Background(lipgloss.Color("157")), plain.Background(lipgloss.Color("217")),
			plain.Background(lipgloss.Color("220")).Foreground(lipgloss.Color("16"))}
	}
	return s
}

// style is the style of a token on a background.
func (s *diffStyles) style(tt chroma.TokenType, bg int) wrap {
	k := [2]int{int(tt), bg}
	if w, ok := s.memo[k]; ok {
		return w
	}
	st := s.bg[bg]
	if s.syntax != nil && bg != bgMatch {
		e := s.syntax.Get(tt)
		if e.Colour.IsSet() {
			st = st.Foreground(lipgloss.Color(e.Colour.String()))
		}
		if e.Bold == chroma.Yes {
			st = st.Bold(true)
		}
		if e.Italic == chroma.Yes {
			st = st.Italic(true)
		}
	}
	w := wrapOf(st)
	s.memo[k] = w
	return w
}

// code draws a line's tokens within width cells, emphasised spans on the stronger background,
// and pads changed lines to width so their background reads as a band.
func (s *diffStyles) code(segs []seg, emph []span, bg, width int) string {
	return s.codeRows(segs, emph, nil, bg, width, 0, false)[0]
}

// codeRows draws a line's code from column skip on: cut with … at width, or, with wrap, as
// as many rows of width cells as it takes. Changed lines are padded to width on every row.
func (s *diffStyles) codeRows(segs []seg, emph, marks []span, bg, width, skip int, wrap bool) []string {
	var rows []string
	var b strings.Builder
	used, off := 0, 0
	emphBg := bg
	switch bg {
	case bgAdd:
		emphBg = bgAddEmph
	case bgDel:
		emphBg = bgDelEmph
	}
	// A line that does not fit is cut one cell early, so that the … marking the cut takes the
	// last cell: cutting when the row is already full put the … one cell past the pane, where
	// the frame dropped it, and a line one cell too long looked whole.
	limit := width
	if !wrap {
		n := 0
		for _, sg := range segs {
			n += cellWidth(sg.text)
		}
		if n-skip > width {
			limit = max(width-1, 0)
		}
	}
	pad := func() {
		if bg != bgNone && used < width && !s.mono {
			st := s.style(chroma.Background, bg)
			b.WriteString(st.pre + strings.Repeat(" ", width-used) + st.post)
		}
	}
	put := func(text string, b2 int, tt chroma.TokenType) bool {
		for text != "" {
			w := cellWidth(text)
			if skip > 0 {
				if w <= skip {
					skip -= w
					return true
				}
				text = ansi.TruncateLeft(text, skip, "")
				skip = 0
				w = cellWidth(text)
			}
			st := s.style(tt, b2)
			if used+w <= limit {
				b.WriteString(st.pre + text + st.post)
				used += w
				return true
			}
			if !wrap {
				head := splitCells(text, min(limit, width-1)-used)
				b.WriteString(st.pre + head + "…" + st.post)
				used += cellWidth(head) + 1
				return false
			}
			head := splitCells(text, width-used)
			if head == "" && used == 0 {
				// A character wider than the row: it goes alone.
				_, n := utf8.DecodeRuneInString(text)
				head = text[:n]
			}
			if head != "" {
				b.WriteString(st.pre + head + st.post)
				used += cellWidth(head)
			}
			pad()
			rows = append(rows, b.String())
			b.Reset()
			used = 0
			text = text[len(head):]
		}
		return true
	}
	// in says whether off is inside one of sp's spans and where that changes.
	in := func(sp []span, i *int) (bool, int) {
		for *i < len(sp) && sp[*i].to <= off {
			*i++
		}
		if *i < len(sp) {
			if sp[*i].from <= off {
				return true, sp[*i].to
			}
			return false, sp[*i].from
		}
		return false, 1 << 30
	}
	ei, mi := 0, 0
outer:
	for _, sg := range segs {
		text := sg.text
		for text != "" {
			on, e := in(emph, &ei)
			marked, mk := in(marks, &mi)
			cut := min(len(text), e-off, mk-off)
			b2 := bg
			if on {
				b2 = emphBg
			}
			if marked {
				b2 = bgMatch
			}
			if !put(text[:cut], b2, sg.tt) {
				break outer
			}
			off += cut
			text = text[cut:]
		}
	}
	pad()
	return append(rows, b.String())
}

// cellWidth is the width of code text in cells (code text holds no escapes; tabs are expanded).
func cellWidth(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return ansi.StringWidth(s)
		}
	}
	return len(s)
}

// splitCells is the longest start of s that fits n cells.
func splitCells(s string, n int) string {
	if n <= 0 {
		return ""
	}
	for i := 0; i < len(s) && i < n; i++ {
		if s[i] >= utf8.RuneSelf {
			return ansi.Truncate(s, n, "")
		}
	}
	return s[:min(n, len(s))]
}

// ---- drawing ----

// diffPage is what one page of a file needs besides the file itself.
type diffPage struct {
	doc      *diffDoc
	file     int
	top, h   int
	w        int
	sel      int          // selected line, -1 for none
	comments map[int]byte // the gutter mark of lines with a comment
	skip     int          // columns scrolled off the left of the code
	wrap     bool         // long lines wrap instead of being cut
	match    string       // the search's query, lower-cased, marked where it occurs
	st       *diffStyles
	t        term.Theme
}

func num(n int32, w int) string {
	if n == 0 {
		return strings.Repeat(" ", w)
	}
	s := strconv.Itoa(int(n))
	if len(s) >= w {
		return s
	}
	return strings.Repeat(" ", w-len(s)) + s
}

func bgOf(kind byte) int {
	switch kind {
	case '+':
		return bgAdd
	case '-':
		return bgDel
	}
	return bgNone
}

// header draws a non-code line (file header, hunk header, note) across width.
func (p diffPage) header(l diffLine, w int, selected bool) string {
	st := p.t.DiffCtx
	switch l.kind {
	case 'F':
		st = p.t.DiffFile
	case '@':
		st = p.t.DiffHunk
	case '\\':
		st = p.t.Dim
	case 'i':
		st = p.st.note
	}
	mark := " "
	if selected {
		mark = "›"
	}
	return mark + st.Render(ansi.Truncate(l.text, max(w-1, 0), "…"))
}

// unified draws the page with both line numbers in the gutter.
func (p diffPage) unified() string {
	f := &p.doc.files[p.file]
	c := p.doc.highlight(p.file, p.top, p.top+p.h, p.st.mono)
	var b strings.Builder
	gw := 2*f.numW + 2
	cont := strings.Repeat(" ", 2*f.numW) + "↪"
	n := 0
	for i := p.top; i < len(f.lines) && n < p.h; i++ {
		l := f.lines[i]
		if l.kind != '+' && l.kind != '-' && l.kind != ' ' {
			if n > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(p.header(l, p.w, i == p.sel))
			n++
			continue
		}
		rows := p.st.codeRows(c.segs[i], p.doc.emphasis(p.file, i), p.marks(i), bgOf(l.kind), max(p.w-gw-2, 1), p.skip, p.wrap)
		for k, r := range rows {
			if n >= p.h {
				break
			}
			if n > 0 {
				b.WriteByte('\n')
			}
			if k == 0 {
				b.WriteString(p.gutter(i == p.sel, num(l.oldNo, f.numW)+" "+num(l.newNo, f.numW), p.comments[i]))
				b.WriteString(p.sign(l.kind))
			} else {
				b.WriteString(p.contGutter(i == p.sel, cont))
			}
			b.WriteString(r)
			n++
		}
	}
	return b.String()
}

// marks are where the search's query occurs in line i (none where lower-casing changed the
// line's length, so byte offsets would not match).
func (p diffPage) marks(i int) []span {
	if p.match == "" {
		return nil
	}
	f := &p.doc.files[p.file]
	if f.collapsed {
		return nil
	}
	low := p.doc.lowerLines(p.file)[i]
	if len(low) != len(f.lines[i].text) {
		return nil
	}
	var out []span
	for from := 0; ; {
		j := strings.Index(low[from:], p.match)
		if j < 0 {
			return out
		}
		out = append(out, span{from + j, from + j + len(p.match)})
		from += j + len(p.match)
	}
}

// Comment marks in the gutter: an open comment, one already sent to the worker, an outdated one.
const (
	markOpen     byte = 'o'
	markSent     byte = 's'
	markOutdated byte = 'x'
)

func (p diffPage) gutter(selected bool, nums string, comment byte) string {
	mark, cm := " ", " "
	if selected {
		mark = "›"
	}
	switch comment {
	case markOpen:
		cm = p.t.Warn.Render("●")
	case markSent:
		cm = p.t.Dim.Render("◉")
	case markOutdated:
		cm = p.t.Dim.Render("○")
	}
	if selected {
		return mark + p.st.cursor.Render(nums) + cm
	}
	return mark + p.st.gutter.Render(nums) + cm
}

// contGutter is the gutter of a wrapped line's further rows: ↪ where the numbers were.
func (p diffPage) contGutter(selected bool, cont string) string {
	if selected {
		return " " + p.st.cursor.Render(cont) + "  "
	}
	return " " + p.st.gutter.Render(cont) + "  "
}

func (p diffPage) sign(kind byte) string {
	switch kind {
	case '+':
		return p.t.DiffAdd.Render("+")
	case '-':
		return p.t.DiffDel.Render("-")
	}
	return " "
}

// sbsRow is one row of the side-by-side view: the old side's line and the new side's, -1 where
// a side has none. A row with both set to the same index is a header across both sides.
type sbsRow struct{ l, r int32 }

// rows lays each run of removed lines beside the run of added lines after it: a removed line
// paired with an added one (see pairRuns) shares its row, and the lines between pairs fill
// rows side by side in order.
func (d *diffDoc) rows(i int) ([]sbsRow, []int32) {
	c := d.cache(i)
	if c.sbs != nil {
		return c.sbs, c.rowOfIdx
	}
	f := &d.files[i]
	rowOf := make([]int32, len(f.lines))
	var rows []sbsRow
	for j := 0; j < len(f.lines); {
		l := f.lines[j]
		switch l.kind {
		case '-', '+':
			k := j
			for k < len(f.lines) && f.lines[k].kind == '-' {
				k++
			}
			e := k
			for e < len(f.lines) && f.lines[e].kind == '+' {
				e++
			}
			add := func(l, r int) {
				if l >= 0 {
					rowOf[l] = int32(len(rows))
				}
				if r >= 0 {
					rowOf[r] = int32(len(rows))
				}
				rows = append(rows, sbsRow{int32(l), int32(r)})
			}
			var pending []int
			next := k
			flush := func(upto int) {
				for n := 0; n < max(len(pending), upto-next); n++ {
					l, r := -1, -1
					if n < len(pending) {
						l = pending[n]
					}
					if next+n < upto {
						r = next + n
					}
					add(l, r)
				}
				pending, next = pending[:0], upto
			}
			for del := j; del < k; del++ {
				if p := int(f.lines[del].pair); p >= next && p < e {
					flush(p)
					add(del, p)
					next = p + 1
					continue
				}
				pending = append(pending, del)
			}
			flush(e)
			j = e
		case ' ':
			rowOf[j] = int32(len(rows))
			rows = append(rows, sbsRow{int32(j), int32(j)})
			j++
		default:
			rowOf[j] = int32(len(rows))
			rows = append(rows, sbsRow{int32(j), int32(j)})
			j++
		}
	}
	c.sbs, c.rowOfIdx = rows, rowOf
	return rows, rowOf
}

// sideBySide draws the page with the old file on the left and the new one on the right.
func (p diffPage) sideBySide() string {
	f := &p.doc.files[p.file]
	rows, rowOf := p.doc.rows(p.file)
	first := 0
	if p.top < len(rowOf) {
		first = int(rowOf[p.top])
	}
	last := min(first+p.h, len(rows))
	from, to := p.top, p.top
	for _, r := range rows[first:last] {
		// A row may pair a line above top with one on the page.
		if r.l >= 0 {
			from = min(from, int(r.l))
		}
		to = max(to, int(r.l)+1, int(r.r)+1)
	}
	c := p.doc.highlight(p.file, from, to, p.st.mono)
	half := (p.w - 1) / 2
	sep := p.st.gutter.Render("│")
	cont := strings.Repeat(" ", f.numW-1) + "↪"
	side := func(i int32, w int, old bool) []string {
		if i < 0 {
			return []string{strings.Repeat(" ", w)}
		}
		l := f.lines[i]
		n := l.newNo
		if old {
			n = l.oldNo
		}
		rows := p.st.codeRows(c.segs[int(i)], p.doc.emphasis(p.file, int(i)), p.marks(int(i)), bgOf(l.kind), max(w-f.numW-3, 1), p.skip, p.wrap)
		for k, r := range rows {
			if k == 0 {
				rows[k] = term.PadRight(p.gutter(int(i) == p.sel, num(n, f.numW), p.comments[int(i)])+p.sign(l.kind)+r, w)
			} else {
				rows[k] = term.PadRight(p.contGutter(int(i) == p.sel, cont)+r, w)
			}
		}
		return rows
	}
	var b strings.Builder
	n := 0
	for _, r := range rows[first:last] {
		if n >= p.h {
			break
		}
		if r.l >= 0 && r.l == r.r && f.lines[r.l].kind != ' ' {
			if n > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(p.header(f.lines[r.l], p.w, int(r.l) == p.sel))
			n++
			continue
		}
		left, right := side(r.l, half, true), side(r.r, p.w-half-1, false)
		for k := 0; k < max(len(left), len(right)) && n < p.h; k++ {
			if n > 0 {
				b.WriteByte('\n')
			}
			l, rt := strings.Repeat(" ", half), strings.Repeat(" ", p.w-half-1)
			if k < len(left) {
				l = left[k]
			}
			if k < len(right) {
				rt = right[k]
			}
			b.WriteString(l + sep + rt)
			n++
		}
	}
	return b.String()
}

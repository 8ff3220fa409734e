// Command gen writes core/safetext's tables_gen.go from the Unicode Character Database and the
// UTS #39 and UTS #51 data files of one Unicode version, so that what the review calls hidden
// or a look-alike follows the standard's own lists instead of a hand-kept copy of them:
//
//	go run ./internal/gen -ucd DIR -o tables_gen.go
//
// DIR holds DerivedCoreProperties.txt, PropList.txt, Scripts.txt, ScriptExtensions.txt,
// PropertyValueAliases.txt, confusables.txt, IdentifierStatus.txt, emoji-data.txt,
// emoji-sequences.txt and emoji-variation-sequences.txt, all of the same version
// (https://www.unicode.org/Public/, https://www.unicode.org/Public/security/ and
// https://www.unicode.org/Public/emoji/). Without -ucd it reads $UNICODE_DATA, as go generate
// does. The files are large and are not kept in the repository; the generated file records the
// version and each file's sha256.
package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

func main() {
	dir := flag.String("ucd", os.Getenv("UNICODE_DATA"), "directory of the Unicode data files (default $UNICODE_DATA)")
	out := flag.String("o", "tables_gen.go", "file to write")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "gen: name the directory of the Unicode data files with -ucd or $UNICODE_DATA")
		os.Exit(2)
	}
	src, err := Generate(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// inputs are the files read, in the order the header lists them.
var inputs = []string{
	"DerivedCoreProperties.txt", "PropList.txt", "Scripts.txt", "ScriptExtensions.txt",
	"PropertyValueAliases.txt", "confusables.txt", "IdentifierStatus.txt", "emoji-data.txt",
	"emoji-sequences.txt", "emoji-variation-sequences.txt",
}

// tagBlock is the Tags block (Blocks.txt): its default-ignorable code points are the tag
// characters.
const tagFirst, tagLast = 0xE0000, 0xE007F

// set is a set of code points.
type set map[rune]bool

func (s set) addRange(lo, hi rune) {
	for r := lo; r <= hi; r++ {
		s[r] = true
	}
}

func (s set) sorted() []rune {
	out := make([]rune, 0, len(s))
	for r := range s {
		out = append(out, r)
	}
	slices.Sort(out)
	return out
}

// record is one data line: its code points (a range or a sequence), its other fields and
// its comment.
type record struct {
	first   string // the first field as written
	lo, hi  rune
	seq     []rune
	fields  []string
	comment string
}

type ucd struct {
	dir     string
	version string
	sums    map[string]string
}

// read parses one data file and checks its version against the others'.
func (u *ucd) read(name string) ([]record, error) {
	data, err := os.ReadFile(filepath.Join(u.dir, name))
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	u.sums[name] = hex.EncodeToString(sum[:])
	v, err := fileVersion(name, data)
	if err != nil {
		return nil, err
	}
	if strings.Count(v, ".") == 1 {
		v += ".0" // the emoji files name the version without its update number
	}
	if u.version == "" {
		u.version = v
	} else if v != u.version {
		return nil, fmt.Errorf("%s is version %s, the files before it %s", name, v, u.version)
	}
	var out []record
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		line, comment, _ := strings.Cut(sc.Text(), "#")
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.Split(line, ";")
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		rec := record{first: f[0], fields: f[1:], comment: strings.TrimSpace(comment)}
		cps := f[0]
		switch {
		case strings.Contains(cps, ".."):
			a, b, _ := strings.Cut(cps, "..")
			if rec.lo, err = hexRune(a); err == nil {
				rec.hi, err = hexRune(b)
			}
		case strings.Contains(cps, " "):
			for _, h := range strings.Fields(cps) {
				r, e := hexRune(h)
				if e != nil {
					err = e
					break
				}
				rec.seq = append(rec.seq, r)
			}
			rec.lo, rec.hi = -1, -1
		default:
			if rec.lo, err = hexRune(cps); err == nil {
				rec.hi = rec.lo
			}
		}
		if err != nil {
			if name != "PropertyValueAliases.txt" {
				return nil, fmt.Errorf("%s:%d: %v", name, n, err)
			}
			// Its lines name a property, not code points.
			rec.lo, rec.hi, err = -1, -1, nil
		}
		out = append(out, rec)
	}
	return out, sc.Err()
}

var versionRE = []*regexp.Regexp{
	regexp.MustCompile(`(?m)^# [A-Za-z]+-(\d+\.\d+\.\d+)\.txt$`),
	regexp.MustCompile(`(?m)^# Version: (\d+\.\d+(?:\.\d+)?)$`),
}

func fileVersion(name string, data []byte) (string, error) {
	head := data[:min(len(data), 1024)]
	for _, re := range versionRE {
		if m := re.FindSubmatch(head); m != nil {
			return string(m[1]), nil
		}
	}
	return "", fmt.Errorf("%s names no Unicode version in its header", name)
}

func hexRune(s string) (rune, error) {
	v, err := strconv.ParseUint(s, 16, 32)
	if err != nil || v > utf8.MaxRune {
		return 0, fmt.Errorf("bad code point %q", s)
	}
	return rune(v), nil
}

// property collects the code points whose field i is value.
func property(recs []record, i int, value string) set {
	s := set{}
	for _, r := range recs {
		if r.lo >= 0 && len(r.fields) > i && r.fields[i] == value {
			s.addRange(r.lo, r.hi)
		}
	}
	return s
}

// Generate reads the data files in dir and returns the formatted tables_gen.go.
func Generate(dir string) ([]byte, error) {
	u := &ucd{dir: dir, sums: map[string]string{}}
	files := map[string][]record{}
	for _, name := range inputs {
		recs, err := u.read(name)
		if err != nil {
			return nil, err
		}
		files[name] = recs
	}
	derived, props, scripts := files["DerivedCoreProperties.txt"], files["PropList.txt"], files["Scripts.txt"]
	emoji := files["emoji-data.txt"]

	// The General_Category of each assigned code point is in Scripts.txt's comments.
	gc := map[rune]string{}
	for _, r := range scripts {
		if r.lo < 0 {
			continue
		}
		cat, _, _ := strings.Cut(r.comment, " ")
		for c := r.lo; c <= r.hi; c++ {
			gc[c] = cat
		}
	}

	di := property(derived, 0, "Default_Ignorable_Code_Point")
	if !di[0x200B] || !di[0xFEFF] {
		return nil, errors.New("DerivedCoreProperties.txt lists no Default_Ignorable_Code_Point")
	}
	alphabetic := property(derived, 0, "Alphabetic")
	hyphen := property(props, 0, "Hyphen")
	tags := set{}
	for r := range di {
		if r >= tagFirst && r <= tagLast {
			tags[r] = true
		}
	}
	cf := set{}
	for r, cat := range gc {
		if cat == "Cf" {
			cf[r] = true
		}
	}
	// Each hidden code point takes the first class it is in; the classes are disjoint.
	classes := []struct {
		name, kind, doc string
		of              set
	}{
		{"bidiControl", "bidi control", "Bidi_Control: embeddings, overrides, isolates and marks that reorder the text around them", property(props, 0, "Bidi_Control")},
		{"joinControl", "join control", "Join_Control: the zero-width joiner and non-joiner", property(props, 0, "Join_Control")},
		{"variationSelector", "variation selector", "Variation_Selector", property(props, 0, "Variation_Selector")},
		{"tagCharacter", "tag character", "default-ignorable code points of the Tags block, which can spell ASCII text no one sees", tags},
		{"softHyphen", "soft hyphen", "default-ignorable hyphens: drawn only at a line break", intersect(di, hyphen)},
		{"invisibleLetter", "invisible letter", "default-ignorable letters (the Hangul fillers): an identifier made of them looks like nothing", intersect(di, alphabetic)},
		{"zeroWidth", "zero-width", "the other Default_Ignorable_Code_Point characters, drawn as nothing", di},
		{"formatControl", "format control", "the other format characters (General_Category Cf), which a terminal draws as nothing", cf},
	}
	taken := set{}
	all := set{}
	for i := range classes {
		own := set{}
		for r := range classes[i].of {
			if !taken[r] {
				own[r], taken[r], all[r] = true, true, true
			}
		}
		if len(own) == 0 {
			return nil, fmt.Errorf("the class %q is empty", classes[i].kind)
		}
		classes[i].of = own
	}

	// safetext answers ASCII without the tables: no ASCII character may be hidden, and the
	// ASCII identifier characters must be those it assumes.
	xid := property(derived, 0, "XID_Continue")
	for c := rune(0); c < utf8.RuneSelf; c++ {
		if all[c] {
			return nil, fmt.Errorf("U+%04X is ASCII and hidden", c)
		}
		if xid[c] != identByte(byte(c)) {
			return nil, fmt.Errorf("XID_Continue of U+%04X is %v", c, xid[c])
		}
	}

	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by go run ./internal/gen from the Unicode %s data files; DO NOT EDIT.\n//\n", u.version)
	b.WriteString("// Inputs (sha256):\n")
	for _, name := range inputs {
		fmt.Fprintf(&b, "//\t%s %s\n", name, u.sums[name])
	}
	b.WriteString("\npackage safetext\n\nimport \"unicode\"\n\n")
	fmt.Fprintf(&b, "// UnicodeVersion is the version of the Unicode data every table here is made from.\nconst UnicodeVersion = %q\n\n", u.version)

	b.WriteString("// hiddenClasses are the characters that change or hide text without being seen, each with\n// the word a finding names it by; a character is in one class only.\nvar hiddenClasses = []hiddenClass{\n")
	for _, c := range classes {
		fmt.Fprintf(&b, "\t{%q, %s},\n", c.kind, c.name)
	}
	b.WriteString("}\n\n")
	for _, c := range classes {
		writeTable(&b, c.name, c.doc, c.of)
	}
	writeTable(&b, "hiddenAny", "every character of hiddenClasses", all)
	writeTable(&b, "defaultIgnorable", "Default_Ignorable_Code_Point", di)

	writeTable(&b, "identifierChar", "XID_Continue: letters, marks, digits and connectors such as _", xid)

	// Emoji sequences.
	varBase := set{}
	for _, r := range files["emoji-variation-sequences.txt"] {
		if len(r.seq) == 2 && (r.seq[1] == 0xFE0E || r.seq[1] == 0xFE0F) {
			varBase[r.seq[0]] = true
		}
	}
	writeTable(&b, "variationBase", "the characters emoji-variation-sequences.txt gives a text (U+FE0E) and an emoji (U+FE0F) presentation", varBase)
	writeTable(&b, "extendedPictographic", "Extended_Pictographic: what a zero-width joiner joins in an emoji ZWJ sequence", property(emoji, 0, "Extended_Pictographic"))
	writeTable(&b, "emojiModifier", "Emoji_Modifier: the skin tones", property(emoji, 0, "Emoji_Modifier"))
	var tagSeqs []string
	for _, r := range files["emoji-sequences.txt"] {
		if len(r.fields) > 0 && r.fields[0] == "RGI_Emoji_Tag_Sequence" {
			tagSeqs = append(tagSeqs, string(r.seq))
		}
	}
	if len(tagSeqs) == 0 {
		return nil, errors.New("emoji-sequences.txt lists no RGI_Emoji_Tag_Sequence")
	}
	sort.Strings(tagSeqs)
	b.WriteString("// tagSequences are the emoji tag sequences of emoji-sequences.txt (RGI_Emoji_Tag_Sequence):\n// the flags whose tag characters spell a region.\nvar tagSequences = []string{\n")
	maxTag := 0
	for _, s := range tagSeqs {
		fmt.Fprintf(&b, "\t%+q,\n", s)
		maxTag = max(maxTag, utf8.RuneCountInString(s))
	}
	fmt.Fprintf(&b, "}\n\n// maxTagSequence is the length in characters of the longest of tagSequences.\nconst maxTagSequence = %d\n\n", maxTag)

	if err := writeScripts(&b, files); err != nil {
		return nil, err
	}
	upper, lower := property(derived, 0, "Uppercase"), property(derived, 0, "Lowercase")
	allowed := property(files["IdentifierStatus.txt"], 0, "Allowed")
	if !allowed['a'] || !allowed[0x0430] {
		return nil, errors.New("IdentifierStatus.txt lists no Allowed characters")
	}
	if err := writeConfusables(&b, files["confusables.txt"], gc, di, upper, lower, allowed); err != nil {
		return nil, err
	}
	return format.Source(b.Bytes())
}

func intersect(a, b set) set {
	out := set{}
	for r := range a {
		if b[r] {
			out[r] = true
		}
	}
	return out
}

// writeTable writes s as a unicode.RangeTable.
func writeTable(b *bytes.Buffer, name, doc string, s set) {
	type rng struct{ lo, hi rune }
	var rs []rng
	for _, r := range s.sorted() {
		if n := len(rs); n > 0 && rs[n-1].hi == r-1 && (r-1 > 0xFFFF || r <= 0xFFFF) {
			rs[n-1].hi = r
			continue
		}
		rs = append(rs, rng{r, r})
	}
	fmt.Fprintf(b, "// %s: %s.\nvar %s = &unicode.RangeTable{\n", name, doc, name)
	latin := 0
	var r16, r32 []string
	for _, r := range rs {
		if r.hi <= 0xFFFF {
			r16 = append(r16, fmt.Sprintf("{0x%04X, 0x%04X, 1}", r.lo, r.hi))
			if r.hi <= 0xFF {
				latin++
			}
		} else {
			r32 = append(r32, fmt.Sprintf("{0x%X, 0x%X, 1}", r.lo, r.hi))
		}
	}
	if len(r16) > 0 {
		b.WriteString("\tR16: []unicode.Range16{\n")
		writeRows(b, r16, 4)
		b.WriteString("\t},\n")
	}
	if len(r32) > 0 {
		b.WriteString("\tR32: []unicode.Range32{\n")
		writeRows(b, r32, 4)
		b.WriteString("\t},\n")
	}
	if latin > 0 {
		fmt.Fprintf(b, "\tLatinOffset: %d,\n", latin)
	}
	b.WriteString("}\n\n")
}

// writeRows writes items, comma-separated, so many to a line.
func writeRows(b *bytes.Buffer, items []string, perLine int) {
	for i := 0; i < len(items); i += perLine {
		b.WriteString("\t\t" + strings.Join(items[i:min(i+perLine, len(items))], ", ") + ",\n")
	}
}

// writeScripts writes each code point's script set (Script_Extensions, else Script) with the
// augmentations of UTS #39 section 5.1 (Han also stands for Jpan, Kore and Hanb; Hiragana and
// Katakana for Jpan; Hangul for Kore; Bopomofo for Hanb), as a sorted list of where each set
// starts. Common and Inherited, which go with any script, are the set of every script.
func writeScripts(b *bytes.Buffer, files map[string][]record) error {
	long, err := scriptAliases(files["PropertyValueAliases.txt"])
	if err != nil {
		return err
	}
	names := map[string]bool{}
	sc := map[rune]string{}
	for _, r := range files["Scripts.txt"] {
		if r.lo < 0 || len(r.fields) == 0 {
			continue
		}
		names[r.fields[0]] = true
		for c := r.lo; c <= r.hi; c++ {
			sc[c] = r.fields[0]
		}
	}
	scx := map[rune][]string{}
	for _, r := range files["ScriptExtensions.txt"] {
		if r.lo < 0 || len(r.fields) == 0 {
			continue
		}
		var list []string
		for _, short := range strings.Fields(r.fields[0]) {
			l, ok := long[short]
			if !ok {
				return fmt.Errorf("ScriptExtensions.txt: unknown script %q", short)
			}
			list = append(list, l)
		}
		for c := r.lo; c <= r.hi; c++ {
			scx[c] = list
		}
	}
	delete(names, "Common")
	delete(names, "Inherited")
	order := make([]string, 0, len(names)+3)
	for n := range names {
		order = append(order, n)
	}
	sort.Strings(order)
	order = append(order, "Jpan", "Kore", "Hanb")
	if len(order) > 64*scriptWords {
		return fmt.Errorf("%d scripts do not fit a set of %d bits", len(order), 64*scriptWords)
	}
	bit := map[string]int{}
	for i, n := range order {
		bit[n] = i
	}
	for _, want := range []string{"Latin", "Han", "Hiragana", "Katakana", "Hangul", "Bopomofo"} {
		if _, ok := bit[want]; !ok {
			return fmt.Errorf("Scripts.txt lacks %s", want)
		}
	}
	type bits [scriptWords]uint64
	everything := bits{}
	for i := range order {
		everything[i/64] |= 1 << (i % 64)
	}
	setOf := func(c rune) (bits, bool) {
		list, ok := scx[c]
		if !ok {
			s, ok := sc[c]
			if !ok {
				return bits{}, false
			}
			list = []string{s}
		}
		var out bits
		for _, n := range list {
			switch n {
			case "Common", "Inherited":
				return everything, true
			}
			add := []string{n}
			switch n {
			case "Han":
				add = append(add, "Jpan", "Kore", "Hanb")
			case "Hiragana", "Katakana":
				add = append(add, "Jpan")
			case "Hangul":
				add = append(add, "Kore")
			case "Bopomofo":
				add = append(add, "Hanb")
			}
			for _, a := range add {
				out[bit[a]/64] |= 1 << (bit[a] % 64)
			}
		}
		return out, true
	}
	// Unassigned code points take the set of the range before them: they are no identifier
	// characters, so a word never asks about them, and the list stays short.
	index := map[bits]int{everything: 0}
	sets := []bits{everything}
	type start struct {
		lo  rune
		set int
	}
	var starts []start
	for c := rune(0); c <= utf8.MaxRune; c++ {
		s, ok := setOf(c)
		if !ok {
			continue
		}
		i, seen := index[s]
		if !seen {
			i = len(sets)
			index[s] = i
			sets = append(sets, s)
		}
		if n := len(starts); n == 0 || starts[n-1].set != i {
			starts = append(starts, start{c, i})
		}
	}
	if len(starts) == 0 || starts[0].lo != 0 {
		return errors.New("Scripts.txt does not start at U+0000")
	}
	fmt.Fprintf(b, "// scriptCount is the number of scripts a scriptSet holds: the Script values of Scripts.txt\n// besides Common and Inherited, then Jpan, Kore and Hanb.\nconst scriptCount = %d\n\n", len(order))
	fmt.Fprintf(b, "const (\n\tscriptLatin = %d\n\tscriptJpan  = %d\n\tscriptKore  = %d\n\tscriptHanb  = %d\n)\n\n", bit["Latin"], bit["Jpan"], bit["Kore"], bit["Hanb"])
	b.WriteString("// scriptSets are the distinct script sets; the first is every script (Common, Inherited).\nvar scriptSets = []scriptSet{\n")
	for _, s := range sets {
		var parts []string
		for _, w := range s {
			parts = append(parts, fmt.Sprintf("0x%X", w))
		}
		fmt.Fprintf(b, "\t{%s},\n", strings.Join(parts, ", "))
	}
	b.WriteString("}\n\n// scriptStarts lists, in order, each code point from which on the script set (an index into\n// scriptSets) changes.\nvar scriptStarts = []scriptStart{\n")
	var items []string
	for _, s := range starts {
		items = append(items, fmt.Sprintf("{0x%X, %d}", s.lo, s.set))
	}
	writeRows(b, items, 6)
	b.WriteString("}\n\n")
	return nil
}

// scriptWords is the number of 64-bit words in a script set.
const scriptWords = 3

// scriptAliases maps each script's short name (sc) to its long name, from
// PropertyValueAliases.txt.
func scriptAliases(recs []record) (map[string]string, error) {
	out := map[string]string{}
	for _, r := range recs {
		if r.first == "sc" && len(r.fields) >= 2 {
			out[r.fields[0]] = r.fields[1]
		}
	}
	if out["Latn"] != "Latin" || out["Cyrl"] != "Cyrillic" {
		return nil, errors.New("PropertyValueAliases.txt lists no script names")
	}
	return out, nil
}

// writeConfusables writes, for each character that confusables.txt maps to ASCII, the ASCII
// it reads as. A word is a look-alike of ASCII when its UTS #39 skeleton (NFD, each character
// replaced by its prototype, NFD again) is ASCII; only whether a prototype is ASCII matters
// for that, so the other mappings are left out, and so are characters NFD decomposes (a
// skeleton never looks them up) and default-ignorable ones (a skeleton drops them).
//
// A letter of a living language (Identifier_Status Allowed) whose prototype is two ASCII
// letters is left out too: French "cœur", Danish "være" and Russian "ЫХ" are ordinary words,
// and in a terminal's cells æ is as wide as a, so it cannot pass for "ae".
//
// Where several ASCII characters share a prototype ("l" is the prototype of l, I, 1 and |),
// the reading is the one of the same kind as the character: GREEK CAPITAL LETTER IOTA reads
// as "I", ARABIC-INDIC DIGIT ONE as "1", so that a finding names the word a person would
// take it for.
func writeConfusables(b *bytes.Buffer, recs []record, gc map[rune]string, di, upper, lower, allowed set) error {
	proto := map[rune]string{}
	for _, r := range recs {
		if r.lo < 0 || r.lo != r.hi || len(r.fields) == 0 {
			continue
		}
		var target []rune
		for _, h := range strings.Fields(r.fields[0]) {
			t, err := hexRune(h)
			if err != nil {
				return fmt.Errorf("confusables.txt: %v", err)
			}
			target = append(target, t)
		}
		proto[r.lo] = norm.NFD.String(string(target))
	}
	if proto[0x0430] != "a" {
		return errors.New("confusables.txt does not map CYRILLIC SMALL LETTER A to a")
	}
	byProto := map[string][]byte{}
	for a := byte('0'); a <= 'z'; a++ {
		if !identByte(a) {
			continue
		}
		p, ok := proto[rune(a)]
		if !ok {
			p = string(a)
		}
		if !isASCII(p) {
			return fmt.Errorf("confusables.txt maps %q to %+q: an ASCII word's skeleton would not be ASCII", a, p)
		}
		byProto[p] = append(byProto[p], a)
	}
	var items []string
	srcs := make([]rune, 0, len(proto))
	for r := range proto {
		srcs = append(srcs, r)
	}
	slices.Sort(srcs)
	for _, r := range srcs {
		p := proto[r]
		if r < utf8.RuneSelf || di[r] || !isASCII(p) || norm.NFD.String(string(r)) != string(r) {
			continue
		}
		if allowed[r] && len(p) > 1 {
			continue // see above: æ, œ, Ы
		}
		var want func(byte) bool
		switch {
		case upper[r]:
			want = func(c byte) bool { return c >= 'A' && c <= 'Z' }
		case lower[r]:
			want = func(c byte) bool { return c >= 'a' && c <= 'z' }
		case gc[r] == "Nd":
			want = func(c byte) bool { return c >= '0' && c <= '9' }
		}
		reading := p
		if want != nil && !(len(p) == 1 && want(p[0])) {
			for _, c := range byProto[p] {
				if want(c) {
					reading = string(c)
					break
				}
			}
		}
		ident := true
		for i := 0; i < len(reading); i++ {
			ident = ident && identByte(reading[i])
		}
		if ident {
			items = append(items, fmt.Sprintf("{0x%X, %q}", r, reading))
		}
	}
	b.WriteString("// confusables maps each character that confusables.txt makes a look-alike of ASCII letters,\n" +
		"// digits or _ to the ASCII it reads as, sorted by character.\nvar confusables = []confusable{\n")
	writeRows(b, items, 6)
	b.WriteString("}\n")
	return nil
}

func identByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

package safetext

import (
	mathbits "math/bits"
	"slices"
	"sort"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Look-alikes follow UTS #39 (Unicode Security Mechanisms, https://www.unicode.org/reports/tr39/):
// a word is suspect when it mixes scripts that no writing system uses together (section 5.1,
// with Script_Extensions and the Jpan, Kore and Hanb augmentations), or when its skeleton
// (section 4: NFD, each character replaced by its prototype in confusables.txt, NFD again) is
// ASCII although the word is not, so that it passes for an ASCII identifier: Cyrillic "рос"
// for "poc", Cherokee "ᎪᏴ" for "AB", mathematical bold "𝐞𝐱𝐞𝐜" for "exec".

// A LookAlike is a word that can pass for another, or whose letters come from scripts no one
// writing system uses together.
type LookAlike struct {
	// Word is the word as written.
	Word string
	// ASCII is the ASCII identifier the word reads as, or "" when it reads as none.
	ASCII string
	// Mixed says that the word mixes scripts (a resolved script set of UTS #39 that is empty
	// and no Latin with Han, Hiragana, Katakana, Hangul or Bopomofo).
	Mixed bool
}

type scriptSet [3]uint64

func (s scriptSet) and(t scriptSet) scriptSet {
	return scriptSet{s[0] & t[0], s[1] & t[1], s[2] & t[2]}
}

func (s scriptSet) empty() bool { return s == scriptSet{} }

func (s scriptSet) has(i int) bool { return s[i/64]&(1<<(i%64)) != 0 }

// each calls f with each script of s.
func (s scriptSet) each(f func(i int)) {
	for w, bits := range s {
		for bits != 0 {
			f(w*64 + mathbits.TrailingZeros64(bits))
			bits &= bits - 1
		}
	}
}

// anyScript is the set of a character that goes with every script (Common, Inherited).
var anyScript = scriptSets[0]

// cjk are the writing systems whose text can hold Latin words without a space between
// (UTS #39's Highly Restrictive level): Japanese, Korean and Chinese with Bopomofo.
var cjk = func() scriptSet {
	var s scriptSet
	for _, i := range []int{scriptJpan, scriptKore, scriptHanb} {
		s[i/64] |= 1 << (i % 64)
	}
	return s
}()

type scriptStart struct {
	lo  rune
	set uint16
}

// scriptIndex returns the scriptStarts entry of r, whose set is the augmented
// Script_Extensions of r.
func scriptIndex(r rune) int {
	return sort.Search(len(scriptStarts), func(i int) bool { return scriptStarts[i].lo > r }) - 1
}

type confusable struct {
	r     rune
	ascii string
}

// asASCII returns the ASCII a non-ASCII character of an NFD text reads as (see confusables).
func asASCII(r rune) (string, bool) {
	i, ok := slices.BinarySearchFunc(confusables, r, func(c confusable, r rune) int { return int(c.r - r) })
	if !ok {
		return "", false
	}
	return confusables[i].ascii, true
}

// wordChar reports the characters of a word: XID_Continue, and the default-ignorable ones,
// which a word is read without (HiddenIn reports them) instead of being cut at them, so that
// a zero-width space cannot split a look-alike into harmless pieces.
func wordChar(r rune) bool {
	if r < utf8.RuneSelf {
		return r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
	}
	return unicode.Is(identifierChar, r) || unicode.Is(defaultIgnorable, r)
}

type word struct {
	text     string
	nonASCII bool      // a character besides ASCII and the default-ignorable ones
	scripts  scriptSet // the resolved script set
	mixed    bool
	ascii    string // what the word reads as, when its skeleton is ASCII
	reads    bool
}

func readWord(w string) word {
	out := word{text: w, scripts: anyScript}
	rest := anyScript // the scripts of the characters that are not Latin
	k := -1           // the scriptStarts entry of the character before
	maybeASCII := true
	for _, r := range w {
		if r >= utf8.RuneSelf {
			if unicode.Is(defaultIgnorable, r) {
				continue
			}
			out.nonASCII = true
			// Most words of other scripts are no look-alikes: one character that reads as no
			// ASCII, even decomposed, settles it without the skeleton.
			if _, ok := asASCII(r); !ok && maybeASCII && !decomposes(r) {
				maybeASCII = false
			}
		}
		if k < 0 || r < scriptStarts[k].lo || (k+1 < len(scriptStarts) && r >= scriptStarts[k+1].lo) {
			k = scriptIndex(r)
		}
		s := scriptSets[scriptStarts[k].set]
		out.scripts = out.scripts.and(s)
		if !s.has(scriptLatin) {
			rest = rest.and(s)
		}
	}
	if !out.nonASCII {
		return out
	}
	out.mixed = out.scripts.empty() && rest.and(cjk).empty()
	if !maybeASCII {
		return out
	}
	b := make([]byte, 0, len(w))
	for _, r := range norm.NFD.String(w) {
		switch {
		case r < utf8.RuneSelf:
			b = append(b, byte(r))
		case unicode.Is(defaultIgnorable, r):
		default:
			a, ok := asASCII(r)
			if !ok {
				return out
			}
			b = append(b, a...)
		}
	}
	out.ascii, out.reads = string(b), len(b) > 0
	return out
}

// decomposes reports whether NFD changes r.
func decomposes(r rune) bool {
	var buf [utf8.UTFMax]byte
	return !norm.NFD.IsNormal(buf[:utf8.EncodeRune(buf[:], r)])
}

// LookAlikes returns the words of one line of text (runs of letters, marks, digits and _)
// that can pass for an ASCII identifier, or that mix scripts, each once, in order.
//
// A word of one script that reads as ASCII is also an ordinary word of some languages:
// Russian "а", "с" and "рос", Greek "ο", Turkish "kapı". It is taken for prose when the line
// holds more words of its script that read as no ASCII than ASCII words: "// Он рос в
// деревне" is a sentence, "if рос == nil" or "x := рос // Привет" is code with a look-alike.
// Mixed-script words, and words whose characters belong to no script in particular (𝐞𝐱𝐞𝐜),
// are findings wherever they stand.
func LookAlikes(line string) []LookAlike {
	if isASCII(line) {
		return nil
	}
	words := make([]word, 0, 16)
	for i := 0; i < len(line); {
		r, n := utf8.DecodeRuneInString(line[i:])
		if !wordChar(r) {
			i += n
			continue
		}
		j := i + n
		for j < len(line) {
			r, m := utf8.DecodeRuneInString(line[j:])
			if !wordChar(r) {
				break
			}
			j += m
		}
		words = append(words, readWord(line[i:j]))
		i = j
	}
	suspect := false
	for _, w := range words {
		suspect = suspect || w.reads || w.mixed
	}
	if !suspect {
		return nil
	}
	asciiWords := 0
	var genuine [scriptCount]int // per script, the words that read as no ASCII
	for _, w := range words {
		switch {
		case !w.nonASCII:
			if w.text != "" && !isDefaultIgnorable(w.text) {
				asciiWords++
			}
		case !w.mixed && !w.reads && w.scripts != anyScript:
			w.scripts.each(func(i int) { genuine[i]++ })
		}
	}
	prose := func(w word) bool {
		if w.scripts == anyScript {
			return false
		}
		most := 0
		w.scripts.each(func(i int) { most = max(most, genuine[i]) })
		return most > asciiWords
	}
	var out []LookAlike
	seen := map[string]bool{}
	for _, w := range words {
		if !w.nonASCII || seen[w.text] {
			continue
		}
		var la LookAlike
		switch {
		case w.reads && (w.mixed || !prose(w)):
			la = LookAlike{Word: w.text, ASCII: w.ascii, Mixed: w.mixed}
		case w.mixed:
			la = LookAlike{Word: w.text, Mixed: true}
		default:
			continue
		}
		seen[w.text] = true
		out = append(out, la)
	}
	return out
}

func isDefaultIgnorable(s string) bool {
	for _, r := range s {
		if !unicode.Is(defaultIgnorable, r) {
			return false
		}
	}
	return true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

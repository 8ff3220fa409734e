package safetext

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// ucdDir is the directory of the Unicode data files the tables were made from, which the
// repository does not keep: the tests that read them run when UNICODE_DATA names it.
func ucdDir(t *testing.T) string {
	dir := os.Getenv("UNICODE_DATA")
	if dir == "" {
		t.Skip("UNICODE_DATA names no directory of the Unicode data files")
	}
	return dir
}

// Every emoji sequence the standard lists (ZWJ sequences, keycaps, flags, tag sequences,
// modifier sequences, presentation sequences in both styles) is whole: nothing in it is
// hidden, and Sanitize leaves it as it is. The one exception is a presentation selector on an
// ASCII character outside a keycap.
func TestEveryListedEmojiSequenceIsWhole(t *testing.T) {
	dir := ucdDir(t)
	n := 0
	for _, name := range []string{"emoji-zwj-sequences.txt", "emoji-sequences.txt", "emoji-variation-sequences.txt"} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			field, _, _ := strings.Cut(sc.Text(), ";")
			field, _, _ = strings.Cut(field, "#")
			cps := strings.Fields(field)
			if len(cps) < 2 {
				continue // a single character or a range of them
			}
			var seq []rune
			for _, h := range cps {
				v, err := strconv.ParseUint(h, 16, 32)
				if err != nil {
					t.Fatalf("%s: %q", name, sc.Text())
				}
				seq = append(seq, rune(v))
			}
			s := string(seq)
			if len(seq) == 2 && seq[0] < 0x80 {
				// A digit, # or * takes a presentation selector only in a keycap: a selector
				// after a digit of an identifier would tell two alike-looking names apart.
				if got := hiddenList(s); len(got) != 1 {
					t.Errorf("%s: HiddenIn(%+q) = %q", name, s, got)
				}
				continue
			}
			if got := hiddenList(s); got != nil {
				t.Errorf("%s: HiddenIn(%+q) = %q", name, s, got)
			}
			if got := Sanitize(s); got != s {
				t.Errorf("%s: Sanitize(%+q) = %+q", name, s, got)
			}
			n++
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	if n < 2000 {
		t.Fatalf("only %d sequences read", n)
	}
}

package core

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSourceRisksNameEachFileAndLine(t *testing.T) {
	diff := strings.Join([]string{
		"diff --git a/clean.go b/clean.go",
		"--- a/clean.go",
		"+++ b/clean.go",
		"@@ -1,2 +1,3 @@",
		" package clean",
		"+// \u200b beside a bidi control only in a removed line",
		"-var x = \"\u202e\"",
		"diff --git a/\"evil\\342\\200\\256txt.go\" b/\"evil\\342\\200\\256txt.go\"",
		"new file mode 100644",
		"--- /dev/null",
		"+++ \"b/evil\\342\\200\\256txt.go\"",
		"@@ -0,0 +1,3 @@",
		"+package evil",
		"+var pаypal = 1 // Cyrillic а",
		"+var ok\u2066 = 2",
		"diff --git a/bin b/bin",
		"GIT binary patch",
		"literal 3",
		"+\u202e not a line of text",
		"diff --git a/gone.go b/gone.go",
		"--- a/gone.go",
		"+++ /dev/null",
		"@@ -1 +0,0 @@",
		"-\u202e",
		"",
	}, "\n")
	got := SourceRisks([]byte(diff), "clean.go", "photo\u202egnp.exe", "plain.bin")
	want := []SourceRisk{
		{ID: "trojan_source:clean.go", Path: "clean.go", Lines: []int{2}, Text: "trojan_source:clean.go: line 2: zero-width U+200B"},
		{ID: "trojan_source:evil\u202etxt.go", Path: "evil\u202etxt.go", Lines: []int{0, 2, 3},
			Text: "trojan_source:evil\u202etxt.go: file name: bidi control U+202E; line 2: mixed-script look-alike of \"paypal\": \"p\\u0430ypal\", look-alike of \"a\": \"\\u0430\"; line 3: bidi control U+2066"},
		// A binary file shows no lines in the diff: its name is checked all the same.
		{ID: "trojan_source:photo\u202egnp.exe", Path: "photo\u202egnp.exe", Lines: []int{0},
			Text: "trojan_source:photo\u202egnp.exe: file name: bidi control U+202E"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("SourceRisks:\n got %+v\nwant %+v", got, want)
	}
	if got := hiddenFindings("Привет мир, hello world, αβγ, ❤️ 👨‍👩‍👧"); got != nil {
		t.Fatalf("words in one script, emoji: %q", got)
	}
}

func TestSourceRisksAreBounded(t *testing.T) {
	var b strings.Builder
	for i := range maxSourceRisks + 5 {
		fmt.Fprintf(&b, "diff --git a/f%d b/f%d\n+++ b/f%d\n@@ -0,0 +1,%d @@\n", i, i, i, maxRiskFindings+3)
		for range maxRiskFindings + 3 {
			b.WriteString("+\ufeffx\n")
		}
	}
	got := SourceRisks([]byte(b.String()))
	if len(got) != maxSourceRisks || got[len(got)-1].ID != SourceRiskPrefix+"more" ||
		!strings.Contains(got[len(got)-1].Text, "6 more files") {
		t.Fatalf("%d risks, last %+v", len(got), got[len(got)-1])
	}
	for _, r := range got {
		if len(r.Text) > len(r.ID)+2+maxFindingsLen+len("…") {
			t.Fatalf("risk text of %d bytes: %q", len(r.Text), r.Text)
		}
	}
	if !strings.HasSuffix(got[0].Text, "; and 3 more") || len(got[0].Lines) != maxRiskFindings+3 {
		t.Fatalf("first risk: %+v", got[0])
	}
}

// samplesDir holds one sample file per class of hidden character or look-alike (hidden/), the
// finding each must raise (expected.txt), and text that must raise none (benign/).
const samplesDir = "safetext/testdata"

// readSamples returns expected.txt's findings by sample, and the benign samples, failing
// unless every file under hidden/ has a finding.
func readSamples(t *testing.T, dir string) (hidden map[string]string, benign []string) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "expected.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	hidden = map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
			name, finding, ok := strings.Cut(line, "\t")
			if !ok {
				t.Fatalf("expected.txt: %q", line)
			}
			hidden[name] = finding
		}
	}
	for _, sub := range []string{"hidden", "benign"} {
		entries, err := os.ReadDir(filepath.Join(dir, sub))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			name := sub + "/" + e.Name()
			if _, ok := hidden[name]; sub == "hidden" && !ok {
				t.Fatalf("expected.txt names no finding for %s", name)
			}
			if sub == "benign" {
				benign = append(benign, name)
			}
		}
	}
	if len(hidden) < 12 || len(benign) < 3 {
		t.Fatalf("%d hidden and %d benign samples", len(hidden), len(benign))
	}
	return hidden, benign
}

// newFileDiff is the diff that adds a file with the given text.
func newFileDiff(path, text string) string {
	lines := strings.SplitAfter(strings.TrimSuffix(text, "\n"), "\n")
	var b strings.Builder
	fmt.Fprintf(&b, "diff --git a/%s b/%s\nnew file mode 100644\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n", path, path, path, len(lines))
	for _, l := range lines {
		b.WriteString("+" + strings.TrimSuffix(l, "\n") + "\n")
	}
	return b.String()
}

// Each sample of a hidden character or look-alike, added as a new file, is a risk naming its
// class; the benign ones (emoji, prose in Russian, Greek, Japanese, German, French, Korean)
// are none.
func TestSourceRisksOfEachSample(t *testing.T) {
	hidden, benign := readSamples(t, samplesDir)
	for name, finding := range hidden {
		text, err := os.ReadFile(filepath.Join(samplesDir, name))
		if err != nil {
			t.Fatal(err)
		}
		got := SourceRisks([]byte(newFileDiff(name, string(text))))
		if len(got) != 1 || got[0].ID != SourceRiskPrefix+name || !strings.Contains(got[0].Text, finding) {
			t.Errorf("%s: risks %+v, want one naming %q", name, got, finding)
		}
	}
	for _, name := range benign {
		text, err := os.ReadFile(filepath.Join(samplesDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := SourceRisks([]byte(newFileDiff(name, string(text)))); len(got) != 0 {
			t.Errorf("%s: risks %+v, want none", name, got)
		}
	}
}

// The findings of one line name each class with the ASCII word a look-alike passes for.
func TestHiddenFindings(t *testing.T) {
	for line, want := range map[string][]string{
		"x := \u3164 + 1": {"invisible letter U+3164"},
		"name\U000E0041\U000E0042 := 1 // \U000E0041\U000E0042": {`tag characters spelling "AB"`},
		"x\U000E0001\U000E0065\U000E006E\U000E007F y\U000E0021": {"tag character U+E0001", `tag characters spelling "en"`, "tag character U+E007F", `tag characters spelling "!"`},
		"isAdmin\ufe0f = true":   {"variation selector U+FE0F"},
		"\"ad\u00admin\"":        {"soft hyphen U+00AD"},
		"var рос = 1":            {`look-alike of "poc": "\u0440\u043e\u0441"`},
		"ᎪᏴ = 2":                 {`look-alike of "AB": "\u13aa\u13f4"`},
		"𝐞𝐱𝐞𝐜(cmd)":              {`look-alike of "exec": "\U0001d41e\U0001d431\U0001d41e\U0001d41c"`},
		"if ΙD > 0":              {`mixed-script look-alike of "ID": "\u0399D"`},
		"x := дом + house\u0434": {`mixed-script identifier "house\u0434"`},
		"// \u202eevil \u200b":   {"bidi control U+202E", "zero-width U+200B"},
		"s := \"❤️ 👨‍👩‍👧 🏴󠁧󠁢󠁳󠁣󠁴󠁿 #️⃣\" // 漢字とひらがな": nil,
		"// Привет, сеть; Größe; αβγ; 한국어":         nil,
	} {
		if got := hiddenFindings(line); !reflect.DeepEqual(got, want) {
			t.Errorf("hiddenFindings(%+q) = %q, want %q", line, got, want)
		}
	}
}

// BenchmarkSourceRisksASCII: a large diff of plain ASCII, the common case, which takes the fast
// path.
func BenchmarkSourceRisksASCII(b *testing.B) {
	var d strings.Builder
	for f := range 200 {
		fmt.Fprintf(&d, "diff --git a/pkg/f%d.go b/pkg/f%d.go\n--- a/pkg/f%d.go\n+++ b/pkg/f%d.go\n@@ -1,500 +1,500 @@\n", f, f, f, f)
		for l := range 500 {
			fmt.Fprintf(&d, "+\tvalue%d := compute(ctx, \"argument %d\", options) // keep the loop tight\n", l, l)
		}
	}
	diff := []byte(d.String())
	b.SetBytes(int64(len(diff)))
	b.ResetTimer()
	for b.Loop() {
		if SourceRisks(diff) != nil {
			b.Fatal("risks in plain ASCII")
		}
	}
}

// BenchmarkSourceRisksText: a diff whose added lines are prose in other scripts and emoji, which
// every line's words are read for.
func BenchmarkSourceRisksText(b *testing.B) {
	var d strings.Builder
	for f := range 20 {
		fmt.Fprintf(&d, "diff --git a/doc/f%d.md b/doc/f%d.md\n--- a/doc/f%d.md\n+++ b/doc/f%d.md\n@@ -1,500 +1,500 @@\n", f, f, f, f)
		for range 500 {
			d.WriteString("+Привет, эта сеть работает быстро ❤️ — 漢字とひらがな, Größe αβγ 👨‍👩‍👧\n")
		}
	}
	diff := []byte(d.String())
	b.SetBytes(int64(len(diff)))
	b.ResetTimer()
	for b.Loop() {
		if SourceRisks(diff) != nil {
			b.Fatal("risks in prose")
		}
	}
}

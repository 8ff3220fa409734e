package core

import (
	"fmt"
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
			Text: "trojan_source:evil\u202etxt.go: file name: bidi control U+202E; line 2: mixed-script identifier \"p\\u0430ypal\"; line 3: bidi control U+2066"},
		// A binary file shows no lines in the diff: its name is checked all the same.
		{ID: "trojan_source:photo\u202egnp.exe", Path: "photo\u202egnp.exe", Lines: []int{0},
			Text: "trojan_source:photo\u202egnp.exe: file name: bidi control U+202E"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("SourceRisks:\n got %+v\nwant %+v", got, want)
	}
	if MixedScriptWords("Привет мир, hello world, αβγ") != nil {
		t.Fatal("words in one script are not mixed")
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

package core

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"reasonixctl/core/gitx"
)

func TestBinaryRisksNameEachFileKeptOrAdded(t *testing.T) {
	files := []gitx.FileChange{
		{Path: "text.go", Status: 'M', NewMode: gitx.ModeFile},
		{Path: "app.js", Status: 'A', NewMode: gitx.ModeFile, BinaryFacts: &gitx.BinaryFacts{Size: 120, OldSize: -1,
			AsText: true, Why: gitx.ShownMostlyText, Controls: 1, ControlLines: []int{2}}},
		{Path: "logo.png", Status: 'A', NewMode: gitx.ModeFile, Binary: true, BinaryFacts: &gitx.BinaryFacts{Size: 5120, OldSize: -1, Why: gitx.NotShownBinary}},
		{Path: "gone.bin", Status: 'D', NewMode: gitx.ModeNone, Binary: true, BinaryFacts: &gitx.BinaryFacts{Size: -1, OldSize: 9}},
		{Path: "now-text.js", Status: 'M', NewMode: gitx.ModeFile, BinaryFacts: &gitx.BinaryFacts{Size: 7, OldSize: 9, AsText: true, Why: gitx.ShownNowText}},
		{Path: "link", Status: 'T', NewMode: gitx.ModeSymlink, Binary: true, BinaryFacts: &gitx.BinaryFacts{Size: -1, OldSize: 9}},
		{Path: "conf.txt", Status: 'M', NewMode: gitx.ModeFile, BinaryFacts: &gitx.BinaryFacts{Size: 900, OldSize: 800,
			AsText: true, Why: gitx.ShownWasText, Controls: 30, ControlLines: []int{1, 2, 3, 4, 5, 6, 7, 8}, MoreControlLines: 4}},
		{Path: "ps.ps1", Status: 'A', NewMode: gitx.ModeExec, BinaryFacts: &gitx.BinaryFacts{Size: 64, OldSize: -1,
			AsText: true, Why: gitx.ShownUTF16, Controls: 31, ControlLines: []int{1}}},
		{Path: "huge.js", Status: 'A', NewMode: gitx.ModeFile, Binary: true, BinaryFacts: &gitx.BinaryFacts{Size: 9 << 20, OldSize: -1, Why: gitx.NotShownLarge}},
		{Path: "bad-\xff\x1b.bin", Status: 'A', NewMode: gitx.ModeFile, Binary: true, BinaryFacts: &gitx.BinaryFacts{Size: 3, OldSize: -1, Why: gitx.NotShownBinary}},
	}
	got := BinaryRisks(files)
	want := []SourceRisk{
		{ID: "binary:app.js", Path: "app.js", Lines: []int{2},
			Text: "binary:app.js: git treats it as binary: shown as text; 1 NUL/control byte at line 2"},
		{ID: "binary:logo.png", Path: "logo.png", Text: "binary:logo.png: binary file: contents not shown, 5120 bytes"},
		{ID: "binary:conf.txt", Path: "conf.txt", Lines: []int{1, 2, 3, 4, 5, 6, 7, 8},
			Text: "binary:conf.txt: git treats it as binary (it was text before this change): shown as text; 30 NUL/control bytes at lines 1, 2, 3, 4, 5, 6, 7, 8 and 4 more"},
		{ID: "binary:ps.ps1", Path: "ps.ps1", Lines: []int{1},
			Text: "binary:ps.ps1: git treats it as binary (UTF-16 text): shown as text, byte by byte; 31 NUL/control bytes at line 1"},
		{ID: "binary:huge.js", Path: "huge.js",
			Text: fmt.Sprintf("binary:huge.js: binary file: contents not shown, %d bytes (over the %d bytes the review shows as text)", 9<<20, gitx.MaxTextShownBytes)},
		// The id is what JSON carries back: valid UTF-8; the control byte stays for a reader's
		// sanitizer to show.
		{ID: "binary:bad-\ufffd\x1b.bin", Path: "bad-\xff\x1b.bin", Text: "binary:bad-\ufffd\x1b.bin: binary file: contents not shown, 3 bytes"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("BinaryRisks:\n got %#v\nwant %#v", got, want)
	}
	for _, r := range got {
		if !utf8.ValidString(r.ID) || !strings.HasPrefix(r.Text, r.ID+": ") {
			t.Errorf("risk %q: id not valid UTF-8 or not the start of its text", r.ID)
		}
	}
}

// However many binary files a change holds, their risks stay within maxBinaryRisks and
// maxBinaryRiskBytes (one long name aside), the last one standing for the rest.
func TestBinaryRisksAreBounded(t *testing.T) {
	png := func(name string) gitx.FileChange {
		return gitx.FileChange{Path: name, Status: 'A', NewMode: gitx.ModeFile, Binary: true,
			BinaryFacts: &gitx.BinaryFacts{Size: 10, OldSize: -1, Why: gitx.NotShownBinary}}
	}
	var many []gitx.FileChange
	for i := range 1000 {
		many = append(many, png(fmt.Sprintf("img/%04d.png", i)))
	}
	exactly := BinaryRisks(many[:maxBinaryRisks])
	if len(exactly) != maxBinaryRisks || exactly[maxBinaryRisks-1].ID != "binary:img/0015.png" {
		t.Fatalf("%d files, %d risks: all should be listed", maxBinaryRisks, len(exactly))
	}
	got := BinaryRisks(many)
	if len(got) != maxBinaryRisks || got[len(got)-1].ID != BinaryRiskPrefix+"more" ||
		got[len(got)-1].Text != "binary:more: 985 more binary files, each in the diff" {
		t.Fatalf("%d risks, last %+v", len(got), got[len(got)-1])
	}

	// Long names: the text shows the head of each id, and fewer fit.
	var wide []gitx.FileChange
	for i := range 20 {
		wide = append(wide, png(fmt.Sprintf("%s%02d.png", strings.Repeat("d/", 1500), i)))
	}
	got = BinaryRisks(wide)
	size := 0
	for _, r := range got[:len(got)-1] {
		size += len(r.Text)
		if !strings.HasPrefix(r.ID, BinaryRiskPrefix+"d/d/") || len(r.ID) != len(BinaryRiskPrefix)+3006 ||
			len(r.Text) > maxIDInText+100 || !strings.HasSuffix(r.Text, "…: binary file: contents not shown, 10 bytes") {
			t.Fatalf("long name: %d-byte id, text %q", len(r.ID), r.Text)
		}
	}
	if len(got) >= maxBinaryRisks || size > maxBinaryRiskBytes || got[len(got)-1].ID != BinaryRiskPrefix+"more" ||
		got[len(got)-1].Text != fmt.Sprintf("binary:more: %d more binary files, each in the diff", 21-len(got)) {
		t.Fatalf("long names: %d risks, %d bytes, last %+v", len(got), size, got[len(got)-1])
	}
}

package main

import (
	"bytes"
	"os"
	"testing"
)

// The committed tables are what the generator makes of the data files in UNICODE_DATA (which
// the repository does not keep; without it the test has nothing to compare).
func TestTablesAreUpToDate(t *testing.T) {
	dir := os.Getenv("UNICODE_DATA")
	if dir == "" {
		t.Skip("UNICODE_DATA names no directory of the Unicode data files")
	}
	got, err := Generate(dir)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../../tables_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("tables_gen.go is not what the generator makes of UNICODE_DATA: run go generate ./core/safetext")
	}
}

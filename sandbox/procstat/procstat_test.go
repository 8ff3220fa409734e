package procstat

import "testing"

// A command name with spaces and parentheses does not shift the fields after it.
func TestParseReadsPastTheCommandName(t *testing.T) {
	line := []byte("4242 (a) (b c) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 200\n")
	comm, f, ok := Parse(line)
	if !ok || comm != "a) (b c" || string(f[State]) != "S" || string(f[PPID]) != "1" || string(f[PGRP]) != "4242" ||
		string(f[Flags]) != "4194560" || string(f[Start]) != "987654" {
		t.Fatalf("Parse = %q %q %v", comm, f, ok)
	}
	if _, _, ok := Parse([]byte("4242 (x) S 1")); ok {
		t.Fatal("a short line parsed")
	}
}

package redact

import (
	"strings"
	"testing"
)

func BenchmarkString4KiBLog(b *testing.B) {
	line := "ok  \tpkg/thing\t0.012s coverage: 81.2% of statements Bearer abc.def token=sk-abcdefghijklmnopqrstu\n"
	s := strings.Repeat(line, 4096/len(line))
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		String(s)
	}
}

func BenchmarkScanBytes64KiB(b *testing.B) {
	line := "func f() { password := os.Getenv(\"X\"); return fmt.Sprintf(\"%s\", password) }\n"
	s := []byte(strings.Repeat(line, 65536/len(line)))
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		ScanBytes(s)
	}
}

func BenchmarkString4KiBPlain(b *testing.B) {
	line := "ok  \tpkg/thing\t0.012s coverage: 81.2% of statements in ./internal/server/handler.go\n"
	s := strings.Repeat(line, 4096/len(line))
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		String(s)
	}
}

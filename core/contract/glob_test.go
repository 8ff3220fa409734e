package contract

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// testdata/picomatch-dot.json holds [pattern, path, picomatch(pattern, {dot:true})(path)] from
// picomatch 4.0.7, the matcher of the earlier bridge.
func TestMatchAgreesWithPicomatch(t *testing.T) {
	data, err := os.ReadFile("testdata/picomatch-dot.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases [][3]any
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	failures := 0
	for _, c := range cases {
		pattern, path, want := c[0].(string), c[1].(string), c[2].(bool)
		if !HasGlob(pattern) {
			// Glob-free patterns are directories or files: themselves and everything under them.
			want = path == pattern || strings.HasPrefix(path, pattern+"/")
		}
		if got := Match(pattern, path); got != want {
			failures++
			if failures <= 30 {
				t.Errorf("Match(%q, %q) = %v, picomatch says %v", pattern, path, got, want)
			}
		}
	}
	if len(cases) < 1000 {
		t.Fatalf("only %d cases", len(cases))
	}
}

func TestMatchEdges(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"src", "src", true}, {"src", "src/a", true}, {"src", "srcx", false}, {"src/a", "src", false},
		{"a/**", "a", true}, {"**", "anything/at/all", true}, {"[", "[", true}, {"a[", "a[", true}, {"[a", "b", false},
		{strings.Repeat("{a,b}", 12), strings.Repeat("a", 12), false}, // over the alternatives bound: matches nothing
		{strings.Repeat("*", 50) + "b", strings.Repeat("a", 60), false},
		{strings.Repeat("**/", 20) + "x", strings.Repeat("a/", 30) + "x", true},
	}
	for _, tt := range tests {
		if got := Match(tt.pattern, tt.path); got != tt.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

func BenchmarkMatchDoubleStar(b *testing.B) {
	for b.Loop() {
		Match("src/**/internal/**/*.{go,s}", "src/a/b/c/internal/d/e/f.go")
	}
}

func BenchmarkParseAndHashSeedFixture(b *testing.B) {
	data, err := os.ReadFile("testdata/seed-fixture.json")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		c, err := Parse(data)
		if err != nil {
			b.Fatal(err)
		}
		_ = c.Hash()
	}
}

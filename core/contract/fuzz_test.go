package contract

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// FuzzParse: any input either fails with issues or yields a contract whose canonical JSON parses
// back to the same bytes (normalisation is idempotent and the hash is stable).
func FuzzParse(f *testing.F) {
	seed, _ := os.ReadFile("testdata/seed-fixture.json")
	f.Add(seed)
	f.Add([]byte(minimal))
	f.Add([]byte(`{"schema_version":1,"objective":" o ","user_outcome":"u","write_scope":["a\\b","./c//d"],"forbidden_scope":["a/**"],
		"acceptance_criteria":[{"id":"a","requirement":"r","evidence":"automated"}],"verification":[{"id":"v","argv":["x"],"cwd":"sub/","proves":["a"]}],
		"allowed_commands":[{"id":"v","argv":["x"],"cwd":"sub"}],"file_assertions":[{"id":"f","path":"c/d","expected_utf8":"\u0000\n","proves":["a"]}]}`))
	f.Add([]byte(`{"schema_version":1e0,"objective":"\u2028","x":[}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data)
		if err != nil {
			if inv, ok := err.(*InvalidError); !ok || len(inv.Issues) == 0 {
				t.Fatalf("error %v is not an InvalidError with issues", err)
			}
			return
		}
		canonical := c.CanonicalJSON()
		again, err := Parse(canonical)
		if err != nil {
			t.Fatalf("canonical JSON does not parse: %v\n%s", err, canonical)
		}
		if !bytes.Equal(again.CanonicalJSON(), canonical) {
			t.Fatalf("canonical JSON is not a fixed point:\n%s\n%s", canonical, again.CanonicalJSON())
		}
		for _, p := range append(append([]string{}, c.WriteScope...), c.ForbiddenScope...) {
			if n, err := NormalisePath(p, false); err != nil || n != p {
				t.Fatalf("scope path %q is not normalised", p)
			}
		}
	})
}

// FuzzNormalisePath: a normalised path is a fixed point and never escapes.
func FuzzNormalisePath(f *testing.F) {
	for _, s := range []string{"a/b", `a\..\b`, "./", "/x", "C:x", "!x", " a//./b/ ", "..", "a/..b"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, p string, allowRoot bool) {
		n, err := NormalisePath(p, allowRoot)
		if err != nil {
			return
		}
		if again, err := NormalisePath(n, allowRoot); err != nil || again != n {
			t.Fatalf("NormalisePath(%q) = %q is not a fixed point (%q, %v)", p, n, again, err)
		}
		if n == "." && !allowRoot {
			t.Fatal("root accepted without allowRoot")
		}
		if strings.HasPrefix(n, "/") || strings.Contains(n, `\`) || strings.Contains(n, "\x00") {
			t.Fatalf("NormalisePath(%q) = %q escapes", p, n)
		}
		for _, seg := range strings.Split(n, "/") {
			if seg == ".." || seg == "" || (seg == "." && n != ".") {
				t.Fatalf("NormalisePath(%q) = %q keeps segment %q", p, n, seg)
			}
		}
	})
}

// FuzzMatch: matching terminates and a glob-free pattern follows the prefix rule.
func FuzzMatch(f *testing.F) {
	f.Add("src/**/*.{go,s}", "src/a/b.go")
	f.Add("[!a]x{,y}", "bx")
	f.Add("{a,{b,c}}*?[", "c[")
	f.Fuzz(func(t *testing.T, pattern, path string) {
		got := Match(pattern, path)
		if !HasGlob(pattern) && got != (path == pattern || strings.HasPrefix(path, pattern+"/")) {
			t.Fatalf("glob-free Match(%q, %q) = %v", pattern, path, got)
		}
		if pattern == path && !strings.ContainsAny(pattern, "*?{}[]()") && !got {
			t.Fatalf("Match(%q, itself) = false", pattern)
		}
	})
}

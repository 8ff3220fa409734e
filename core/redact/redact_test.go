package redact

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	pem := "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----"
	tests := []struct{ in, want string }{
		{"key AKIAABCDEFGHIJKLMNOP here", "key [REDACTED] here"},
		{"AKIAABCDEFGHIJKLMNO", "AKIAABCDEFGHIJKLMNO"}, // one character short
		{"sk-proj-abcdefghijklmnop1234", "[REDACTED]"},
		{"token=sk-abcdefghijklmnopqr.", "token=[REDACTED]."},
		{"rk-short", "rk-short"},
		{"ghp_abcdefghijklmnopqrstuvwxyz", "[REDACTED]"},
		{"gho_abc", "gho_abc"},
		{"Authorization: Bearer abc.def-ghi", "Authorization: [REDACTED]"},
		{"authorization: bearer abc123==", "authorization: [REDACTED]=="},
		{"before\n" + pem + "\nafter", "before\n[REDACTED]\nafter"},
		{"-----BEGIN PRIVATE KEY-----\nunterminated body", "[REDACTED]"},
		{"nothing secret", "nothing secret"},
	}
	for _, tt := range tests {
		if got := String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if ContainsSecret(tt.in) != (tt.in != tt.want) {
			t.Errorf("ContainsSecret(%q) disagrees with String", tt.in)
		}
	}
}

func TestStringTruncation(t *testing.T) {
	long := strings.Repeat("é", MaxStringLen+5)
	got := String(long)
	if !strings.HasSuffix(got, TruncationMarker) || utf8.RuneCountInString(strings.TrimSuffix(got, TruncationMarker)) != MaxStringLen {
		t.Errorf("truncated to %d runes", utf8.RuneCountInString(got))
	}
	if got := Secrets(long + " AKIAABCDEFGHIJKLMNOP"); got != long+" "+Placeholder {
		t.Error("Secrets must redact without cutting")
	}
	exact := strings.Repeat("a", MaxStringLen)
	if String(exact) != exact {
		t.Error("a string of exactly the limit must stay whole")
	}
	// A secret straddling the cut is redacted before cutting, so no part of it survives.
	secret := "ghp_" + strings.Repeat("x", 40)
	s := strings.Repeat("a", MaxStringLen-10) + " " + secret
	if got := String(s); strings.Contains(got, "ghp_") {
		t.Errorf("part of a secret survived the cut: %q", got[len(got)-40:])
	}
}

func TestValue(t *testing.T) {
	var in any
	if err := json.Unmarshal([]byte(`{"api_key":"x","apiKey":{"n":1},"x-auth-token":"t","session-cookie":"c","accessToken":"sk-abcdefghijklmnopqrst",
		"credentials":"kept","tokens":1,"nested":{"password":"p","note":"AKIAABCDEFGHIJKLMNOP","n":3.5,"ok":true,"nil":null},
		"list":["ghp_abcdefghijklmnopqrstuvwxyz",2]}`), &in); err != nil {
		t.Fatal(err)
	}
	got := Value(in).(map[string]any)
	want := map[string]any{"api_key": Placeholder, "apiKey": Placeholder, "x-auth-token": Placeholder, "session-cookie": Placeholder,
		"accessToken": Placeholder, "credentials": "kept", "tokens": 1.0}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	nested := got["nested"].(map[string]any)
	if nested["password"] != Placeholder || nested["note"] != Placeholder || nested["n"] != 3.5 || nested["ok"] != true || nested["nil"] != nil {
		t.Errorf("nested %v", nested)
	}
	if l := got["list"].([]any); l[0] != Placeholder || l[1] != 2.0 {
		t.Errorf("list %v", l)
	}
	if in.(map[string]any)["api_key"] != "x" {
		t.Error("Value modified its input")
	}
}

func TestValueLimits(t *testing.T) {
	var deep any = "leaf"
	for range MaxDepth + 3 {
		deep = map[string]any{"d": deep}
	}
	v := Value(deep)
	for range MaxDepth {
		v = v.(map[string]any)["d"]
	}
	if v != TruncationMarker {
		t.Errorf("level %d is %v, want the truncation marker", MaxDepth, v)
	}
	long := make([]any, MaxItems+10)
	for i := range long {
		long[i] = i
	}
	if got := Value(long).([]any); len(got) != MaxItems {
		t.Errorf("array kept %d items", len(got))
	}
	if got := Value([]string{"ghp_abcdefghijklmnopqrstuvwxyz"}).([]any); got[0] != Placeholder {
		t.Errorf("[]string %v", got)
	}
	if Value(json.Number("12")) != json.Number("12") {
		t.Error("json.Number must stay a number")
	}
	if Value(struct{ A string }{"x"}) != TruncationMarker {
		t.Error("unknown types must not pass through")
	}
	if got := Strings([]string{"a", "Bearer abcdef"}); !slices.Equal(got, []string{"a", Placeholder}) {
		t.Errorf("Strings %v", got)
	}
}

func TestScan(t *testing.T) {
	tests := []struct {
		name, content string
		want          []Finding
	}{
		{"clean", "package main\nfunc main() {}\n", nil},
		{"pattern", "a\nkey := \"AKIAABCDEFGHIJKLMNOP\"\n", []Finding{{2, "pattern"}}},
		{"assignment", "password = \"hunter2hunter2\"\n", []Finding{{1, "assignment"}}},
		{"yaml assignment", "client_secret: 9f8e7d6c5b4a3210\n", []Finding{{1, "assignment"}}},
		{"short value", "password = \"short\"\n", nil},
		{"placeholder values", "api_key=your_api_key_here\npassword: changeme-later-1234\naccess_token = 'EXAMPLE-0000000000'\npasswd=TestPassword123\n", nil},
		{"pem", "x\n-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----\n", []Finding{{2, "pattern"}}},
		{"binary", "AKIAABCDEFGHIJKLMNOP\x00", nil},
	}
	for _, tt := range tests {
		if got := ScanBytes([]byte(tt.content)); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("token: ghp_abcdefghijklmnopqrstuvwxyz\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := ScanFile(p); err != nil || len(got) != 1 {
		t.Errorf("ScanFile = %v, %v", got, err)
	}
	if _, err := ScanFile(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing file must be an error")
	}
}

func TestPaths(t *testing.T) {
	credential := []string{".ssh/id_ed25519", "home/.aws/config", `C:\Users\x\.azure\token`, ".docker/config.json", "a/.gnupg/x", ".kube/config",
		".env", ".env.local", "app/.ENV.production", ".netrc", ".npmrc", ".pypirc", "credentials", "x/credentials.json", "id_rsa", "ID_DSA",
		"kubeconfig", "service-account.json", "serviceaccount-prod.json", "service_account_key.json", "a.jks", "b.keystore", "c.p12", "d.pfx", "tls.key", "cert.PEM"}
	for _, p := range credential {
		if !IsCredentialPath(p) {
			t.Errorf("IsCredentialPath(%q) = false", p)
		}
	}
	plain := []string{".env.example", ".env.sample", "x/.env.template", "src/env.go", "sshd.go", "credentials.yaml", "id_rsa.pub", "keys/readme.md", "key", "", "/"}
	for _, p := range plain {
		if IsCredentialPath(p) {
			t.Errorf("IsCredentialPath(%q) = true", p)
		}
	}
	for p, want := range map[string]bool{".git": true, ".git/config": true, "sub/.git/HEAD": true, "a/.GIT": true, `x\.git\y`: true, ".gitignore": false, "git/x": false, ".github/x": false} {
		if IsGitControlPath(p) != want {
			t.Errorf("IsGitControlPath(%q) != %v", p, want)
		}
	}
	for p, want := range map[string]bool{".reasonix": true, ".reasonix/state.json": true, "./.reasonix/x": true, "src/.reasonix/x": false, ".reasonixrc": false} {
		if IsRuntimeMetadataPath(p) != want {
			t.Errorf("IsRuntimeMetadataPath(%q) != %v", p, want)
		}
	}
	if !slices.Contains(HomeCredentialDirs(), ".ssh") || !slices.Contains(HomeCredentialFiles(), ".git-credentials") {
		t.Error("home credential lists")
	}
}

// reference is String as plain regular expressions: the specification's form.
func reference(s string) string {
	for _, re := range referencePatterns {
		s = re.ReplaceAllLiteralString(s, Placeholder)
	}
	return truncate(s)
}

// FuzzString: the literal-accelerated redaction equals the plain regular expressions, and
// leaves no secret behind.
func FuzzString(f *testing.F) {
	f.Add("Bearer abc ghp_abcdefghijklmnopqrstuvwxyz -----BEGIN PRIVATE KEY-----")
	f.Add(strings.Repeat("sk-", 3000))
	f.Add("xsk-abcdefghijklmnopqr _AKIAABCDEFGHIJKLMNOP BEARER\tq= ghx_ gho_abcdefghijklmnopqrstu-")
	f.Fuzz(func(t *testing.T, s string) {
		got := String(s)
		if want := reference(s); got != want {
			t.Fatalf("String(%q) = %q, reference %q", s, got, want)
		}
		if ContainsSecret(strings.TrimSuffix(got, TruncationMarker)) {
			t.Fatalf("String(%q) still holds a secret: %q", s, got)
		}
		if utf8.ValidString(s) && utf8.RuneCountInString(got) > MaxStringLen+utf8.RuneCountInString(TruncationMarker) {
			t.Fatalf("String kept %d runes", utf8.RuneCountInString(got))
		}
	})
}

// IsSecretKey answers the same for a key it remembers as for one it matches afresh, whatever the
// case, and a long key is matched each time.
func TestIsSecretKeyRemembered(t *testing.T) {
	long := strings.Repeat("x", maxRememberedKeyLen) + "_token"
	for _, k := range []string{"api_key", "API-KEY", "tokenizer", "my_token", "password", "name", long} {
		first, again := IsSecretKey(k), IsSecretKey(k)
		if want := secretKey.MatchString(k); first != want || again != want {
			t.Errorf("IsSecretKey(%q) = %v then %v, want %v", k, first, again, want)
		}
	}
}

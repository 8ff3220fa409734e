package sandbox

import (
	"os"
	"regexp"
	"sort"
	"strings"
)

// secretKey matches environment names that look like they carry a credential.
var secretKey = regexp.MustCompile(`(?i)(^|[_-])(api[_-]?key|access[_-]?key|private[_-]?key|key|token|secret|password|passwd|pwd|pass|credentials?|authorization|auth|cookie|session)($|[_-])`)

var validKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

const defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// IsSecretKey reports whether an environment variable name looks like it carries a credential.
func IsSecretKey(name string) bool { return secretKey.MatchString(name) }

// BuildEnv returns the sorted KEY=VALUE environment of a sandboxed command: CI=1, NO_COLOR=1,
// TMPDIR/TMP/TEMP=/tmp, the inherited PATH, LANG, LC_*, TERM and XDG_* (secret-looking names
// dropped), then extra. HOME is never passed; an extra HOME, a secret-looking or malformed name
// is refused.
func BuildEnv(extra map[string]string) ([]string, error) {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || IsSecretKey(k) {
			continue
		}
		if k == "PATH" || k == "LANG" || k == "TERM" || strings.HasPrefix(k, "LC_") || strings.HasPrefix(k, "XDG_") {
			env[k] = v
		}
	}
	if env["PATH"] == "" {
		env["PATH"] = defaultPath
	}
	for k, v := range map[string]string{"CI": "1", "NO_COLOR": "1", "TMPDIR": "/tmp", "TMP": "/tmp", "TEMP": "/tmp"} {
		env[k] = v
	}
	for k, v := range extra {
		switch {
		case !validKey.MatchString(k):
			return nil, invalid("environment name %q is not a valid variable name", k)
		case k == "HOME":
			return nil, invalid("HOME is never passed to sandboxed commands")
		case IsSecretKey(k):
			return nil, invalid("environment name %q looks like a secret and is refused", k)
		case strings.ContainsRune(v, 0):
			return nil, invalid("environment value of %q contains a NUL byte", k)
		}
		env[k] = v
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out, nil
}

func lookupEnv(env []string, key string) string {
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}

package acp

import (
	"path"
	"strings"
)

// passedEnv are the parent variables a worker always gets (name globs).
var passedEnv = []string{
	"PATH", "HOME", "CODEX_HOME", "LANG", "LANGUAGE", "TERM", "LC_*",
	"TMPDIR", "TMP", "TEMP",
	"XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME",
	"SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "NODE_EXTRA_CA_CERTS",
	"REASONIX_*",
}

// droppedEnv are variables that change how a child loads code or runs helpers. They are never
// passed, whatever the allowlist or the caller's extra entries say.
var droppedEnv = []string{
	"NODE_OPTIONS", "LD_PRELOAD", "LD_LIBRARY_PATH", "BASH_ENV", "ENV", "BASHOPTS",
	"GIT_EXTERNAL_DIFF", "GIT_PAGER", "PAGER", "DYLD_*", "NPM_CONFIG_*", "npm_config_*",
}

func matchesAny(name string, globs []string) bool {
	for _, g := range globs {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return false
}

// childEnv builds a worker's environment: the allowlisted parent variables (the fixed list plus
// the caller's globs), then the caller's extra KEY=VALUE entries, which override. Injection
// variables are dropped from both; later duplicates win.
func childEnv(parent, allow, extra []string) []string {
	var out []string
	index := map[string]int{}
	add := func(kv string, fromParent bool) {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" || matchesAny(name, droppedEnv) {
			return
		}
		if fromParent && !matchesAny(name, passedEnv) && !matchesAny(name, allow) {
			return
		}
		if i, seen := index[name]; seen {
			out[i] = kv
			return
		}
		index[name] = len(out)
		out = append(out, kv)
	}
	for _, kv := range parent {
		add(kv, true)
	}
	for _, kv := range extra {
		add(kv, false)
	}
	return out
}

// EnvPassed reports whether the parent's variable name reaches a worker launched with the
// allowlist globs allow: the fixed list or the allowlist names it, and it is no injection
// variable.
func EnvPassed(name string, allow []string) bool {
	return !matchesAny(name, droppedEnv) && (matchesAny(name, passedEnv) || matchesAny(name, allow))
}

// FixedEnv are the name globs every worker gets from the parent whatever the allowlist says.
func FixedEnv() []string { return append([]string(nil), passedEnv...) }

package policy

import (
	"fmt"
	"regexp"
	"strings"

	"reasonixctl/core/redact"
)

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// hardSets are checked in this order; the first that names the executable decides the code.
// Beyond the specification's lists they include a few equivalents (socat, chgrp, install) and
// the programs that run another program (xargs, timeout, nice, …): a wrapper would otherwise
// carry a hard-denied command past the check on its executable.
var hardSets = []struct {
	code  string
	names map[string]bool
	what  string
}{
	{CodeRemoteAccess, set("gh"), "talks to a remote service"},
	{CodeNetworkAccess, set("curl", "wget", "nc", "ncat", "netcat", "ssh", "scp", "sftp", "ftp", "telnet", "rsync", "socat", "aria2c"), "reaches the network"},
	{CodePrivilegeEscalation, set("sudo", "doas", "su", "pkexec", "runuser"), "escalates privileges"},
	{CodeDestructiveFilesystem, set("rm", "rmdir", "mv", "cp", "touch", "mkdir", "chmod", "chown", "chgrp", "ln", "tee", "dd", "mkfs", "shred", "diskutil", "format", "unlink", "truncate", "install"), "changes the file system outside the structured edit tools"},
	{CodeShellEval, set("sh", "bash", "dash", "zsh", "ksh", "fish", "csh", "tcsh", "ash", "mksh", "pwsh", "powershell", "cmd", "eval", "exec", "source", ".", "command", "builtin", "nohup",
		"xargs", "timeout", "nice", "ionice", "time", "stdbuf", "setsid", "watch", "script", "flock", "chroot", "unshare", "nsenter", "busybox", "strace", "ltrace", "parallel"), "runs a shell or another program the policy cannot see"},
}

// interpreter recognises programs that run code given on their command line.
var interpreter = regexp.MustCompile(`^(?:node|nodejs|python[0-9.]*|ruby|perl|php|lua[0-9.]*|luajit|deno|bun)$`)

// inlineLetters are the short options that take inline code, per interpreter family; a short
// option cluster containing one of them ("-ne", "-c'…'") counts.
func inlineLetters(exe string) string {
	switch {
	case exe == "node" || exe == "nodejs" || exe == "bun" || exe == "deno":
		return "ecp"
	case exe == "php":
		return "rec"
	}
	return "ec"
}

// publishWords are subcommands (or script names) that publish, release or deploy.
var publishWords = set("publish", "release", "deploy", "dist-tag", "tag", "unpublish", "deprecate", "owner", "access", "yank", "push", "upload")

// publishers are the programs whose first argument may publish something.
var publishers = set("npm", "pnpm", "yarn", "bun", "npx", "corepack", "cargo", "go", "make", "cmake", "gradle", "gradlew", "mvn", "mvnw",
	"gem", "twine", "poetry", "uv", "pip", "pip3", "dotnet", "nuget", "docker", "podman", "helm", "lerna", "changeset", "changesets", "vsce", "ovsx", "hatch", "flit", "composer", "git-release")

// releaseTools publish whatever their arguments.
var releaseTools = set("twine", "goreleaser", "semantic-release", "release-it", "np", "publish", "release", "deploy", "unpublish")

// packageManagers fetch from the network with the subcommands in networkSubcommands.
var packageManagers = set("npm", "pnpm", "yarn", "bun", "npx", "corepack", "cargo", "go", "make", "cmake", "gradle", "gradlew", "mvn", "mvnw",
	"pip", "pip3", "pipx", "uv", "poetry", "gem", "bundle", "composer", "apt", "apt-get", "brew", "dnf", "yum", "apk")

var networkSubcommands = set("add", "install", "i", "update", "upgrade", "up", "outdated", "search", "view", "info", "dlx", "create", "init", "login", "logout", "whoami", "get", "fetch", "download")

// hardDenial applies the denials no contract can lift.
func hardDenial(argv []string) (Decision, bool) {
	exe := executable(argv[0])
	base := exe
	if strings.HasPrefix(exe, "mkfs.") {
		base = "mkfs"
	}
	for _, s := range hardSets {
		if s.names[base] {
			return deny(s.code, fmt.Sprintf("%q %s.", argv[0], s.what)), true
		}
	}
	if interpreter.MatchString(exe) {
		if arg, ok := inlineCode(exe, argv[1:]); ok {
			return deny(CodeInlineCode, fmt.Sprintf("%q runs inline code (%s).", argv[0], arg)), true
		}
	}
	if word, ok := publishes(exe, argv); ok {
		return deny(CodePublishRelease, fmt.Sprintf("%q would %s.", strings.Join(argv[:min(len(argv), 3)], " "), word)), true
	}
	if packageManagers[exe] && len(argv) > 1 && networkSubcommands[strings.ToLower(argv[1])] {
		return deny(CodeNetworkAccess, fmt.Sprintf("%q %s fetches packages from the network.", argv[0], argv[1])), true
	}
	for i, arg := range argv {
		if why := escapes(arg, i == 0); why != "" {
			return deny(CodePathEscape, fmt.Sprintf("Argument %q %s.", arg, why)), true
		}
	}
	return Decision{}, false
}

func inlineCode(exe string, args []string) (string, bool) {
	letters := inlineLetters(exe)
	if exe == "deno" && len(args) > 0 && args[0] == "eval" {
		return "eval", true
	}
	for _, a := range args {
		switch {
		case a == "--eval" || a == "--print" || strings.HasPrefix(a, "--eval=") || strings.HasPrefix(a, "--print="):
			return a, true
		case len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsAny(shortLetters(a), letters):
			return a, true
		}
	}
	return "", false
}

// shortLetters is the leading run of letters of a short option cluster ("-ne" → "ne"); the
// first letter is kept even when code follows it directly ("-cprint(1)" → "c…").
func shortLetters(a string) string {
	end := 1
	for end < len(a) && (a[end] >= 'a' && a[end] <= 'z' || a[end] >= 'A' && a[end] <= 'Z') {
		end++
	}
	return a[1:max(end, 2)]
}

// publishes decides publish_release on the executable: a release tool, a publisher whose first
// argument (or `run <script>`) starts with a publish word, or a program named like one
// (./release.sh). Other programs' arguments never count: `cat release` is a read.
func publishes(exe string, argv []string) (string, bool) {
	stem := exe
	if i := strings.IndexByte(stem, '.'); i > 0 {
		stem = stem[:i]
	}
	if releaseTools[exe] || releaseTools[stem] {
		return "publish a release", true
	}
	if !publishers[exe] || len(argv) < 2 {
		return "", false
	}
	sub := strings.ToLower(argv[1])
	if (sub == "run" || sub == "run-script" || sub == "x" || sub == "exec" || sub == "nuget") && len(argv) > 2 {
		sub = strings.ToLower(argv[2])
	}
	first := strings.FieldsFunc(sub, func(r rune) bool { return r == ':' || r == '_' || r == '/' })
	switch {
	case publishWords[sub], releaseTools[sub]:
		return sub, true
	case len(first) > 0 && (publishWords[first[0]] || releaseTools[first[0]]):
		return sub, true
	case strings.HasPrefix(sub, "release-") || strings.HasPrefix(sub, "publish-") || strings.HasPrefix(sub, "deploy-"):
		return sub, true
	}
	return "", false
}

// escapes says why an argument reaches outside the worktree: absolute, home-relative, a ".."
// segment, or a credential path, checked on the whole argument and on the value after "=".
// The executable itself may be absolute (/usr/bin/git); the rest of the rules apply to it too.
func escapes(arg string, isExecutable bool) string {
	candidates := []string{arg}
	if i := strings.IndexByte(arg, '='); i >= 0 {
		candidates = append(candidates, arg[i+1:])
	}
	for _, c := range candidates {
		switch {
		case c == "":
		case !isExecutable && (c[0] == '/' || c[0] == '\\' || c[0] == '~' || (len(c) >= 2 && c[1] == ':' && isLetter(c[0]))):
			return "is an absolute path"
		case hasDotDot(c):
			return "contains a '..' segment"
		case redact.IsCredentialPath(c):
			return "names a credential file"
		}
	}
	return ""
}

func isLetter(b byte) bool { return (b|0x20) >= 'a' && (b|0x20) <= 'z' }

func hasDotDot(s string) bool {
	for _, seg := range strings.FieldsFunc(s, func(r rune) bool { return r == '/' || r == '\\' }) {
		if seg == ".." {
			return true
		}
	}
	return false
}

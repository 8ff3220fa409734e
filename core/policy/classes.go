package policy

import (
	"fmt"
	"regexp"
	"strings"
)

var gitReadSubcommands = set("status", "diff", "show", "log", "rev-parse", "rev-list", "diff-tree", "diff-index", "ls-files", "ls-tree",
	"cat-file", "name-rev", "describe", "merge-base", "show-ref", "symbolic-ref", "grep")

// gitForbiddenFlags change configuration, run programs or write files even in read-only forms.
// -O/--open-files-in-pager (git grep) runs a program too.
var gitForbiddenFlags = []string{"-c", "--config-env", "--exec-path", "--git-dir", "--work-tree", "--namespace", "--output",
	"--ext-diff", "--textconv", "--no-index", "--notes", "--open-files-in-pager"}

// gitDecision allows `git [--no-pager] <read-only subcommand> …` without forbidden flags.
func gitDecision(argv []string) Decision {
	args := argv[1:]
	if len(args) > 0 && args[0] == "--no-pager" {
		args = args[1:]
	}
	mutation := func(why string) Decision {
		return deny(CodeGitMutation, fmt.Sprintf("%q is not a read-only git command: %s.", strings.Join(argv, " "), why))
	}
	if len(args) == 0 || !gitReadSubcommands[args[0]] {
		return mutation("only status, diff, show, log and other inspection subcommands are allowed, after at most --no-pager")
	}
	sub, rest := args[0], args[1:]
	for _, a := range rest {
		if a == "--" {
			break
		}
		for _, f := range gitForbiddenFlags {
			if a == f || strings.HasPrefix(a, f+"=") || (a != "--not" && abbreviates(a, f)) {
				return mutation("option " + f + " is forbidden")
			}
		}
		if strings.HasPrefix(a, "-O") && sub == "grep" {
			return mutation("option -O runs a pager")
		}
	}
	switch sub {
	case "symbolic-ref":
		var operands []string
		for _, a := range rest {
			switch a {
			case "--short", "-q", "--quiet":
			default:
				operands = append(operands, a)
			}
		}
		if len(operands) != 1 || strings.HasPrefix(operands[0], "-") {
			return mutation("symbolic-ref may only read one ref")
		}
	case "cat-file":
		for _, a := range rest {
			if a == "--filters" || strings.HasPrefix(a, "--filters=") {
				return mutation("cat-file --filters runs filters")
			}
		}
	}
	return allow(ReadTimeoutSeconds, "Read-only git command.")
}

var readCommands = set("cat", "ls", "rg", "sed", "find", "head", "tail", "wc", "cut", "sort", "uniq", "stat", "file", "pwd", "tree", "du")

// sedRange is the only sed script allowed: print a line or a range.
var sedRange = regexp.MustCompile(`^(?:[0-9]+|\$)(?:,(?:[0-9]+|\$))?p?$`)

// readDecision allows the audited read commands, refusing the options that write files, run
// programs or never return.
func readDecision(exe string, argv []string) Decision {
	unsafe := func(why string) Decision {
		return deny(CodeUnsafeReadCommand, fmt.Sprintf("%q is not a safe read: %s.", strings.Join(argv, " "), why))
	}
	args := argv[1:]
	switch exe {
	case "sed":
		if why := sedProblem(args); why != "" {
			return unsafe(why)
		}
	case "find":
		for _, a := range args {
			switch a {
			case "-delete", "-exec", "-execdir", "-ok", "-okdir", "-fls", "-fprint", "-fprint0", "-fprintf":
				return unsafe("find " + a + " changes files or runs programs")
			}
		}
	case "rg":
		for _, a := range options(args) {
			for _, f := range []string{"--pre", "--pre-glob", "--hostname-bin", "--hyperlink-format"} {
				if a == f || strings.HasPrefix(a, f+"=") {
					return unsafe("rg " + f + " runs programs")
				}
			}
		}
	case "sort":
		for _, a := range options(args) {
			if abbreviates(a, "--output") || abbreviates(a, "--compress-program") || shortHas(a, "o", "ktST") {
				return unsafe("sort may not write an output file or run a compressor")
			}
		}
	case "tail":
		for _, a := range options(args) {
			if abbreviates(a, "--follow") || abbreviates(a, "--retry") || shortHas(a, "fF", "ncs") {
				return unsafe("tail may not follow a file")
			}
		}
	case "uniq":
		if operands(args, "fsw") > 1 {
			return unsafe("uniq with a second operand writes an output file")
		}
	case "tree":
		for _, a := range options(args) {
			if strings.HasPrefix(a, "-o") {
				return unsafe("tree -o writes an output file")
			}
		}
	case "file":
		for _, a := range options(args) {
			if abbreviates(a, "--compile") || shortHas(a, "C", "emfFP") {
				return unsafe("file -C writes a compiled magic file")
			}
		}
	}
	return allow(ReadTimeoutSeconds, fmt.Sprintf("Read-only %s command.", exe))
}

// abbreviates reports whether a is the long option long, or an abbreviation of it that GNU
// getopt and git would accept ("--outp=x" for --output), with or without "=value".
func abbreviates(a, long string) bool {
	name, _, _ := strings.Cut(a, "=")
	return strings.HasPrefix(name, "--") && len(name) >= 3 && strings.HasPrefix(long, name)
}

// options returns the arguments before "--" that look like options.
func options(args []string) []string {
	var out []string
	for _, a := range args {
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			out = append(out, a)
		}
	}
	return out
}

// shortHas reports whether a short option cluster ("-uo", "-fn5") contains one of letters before
// the first letter that takes a value (after which the rest of the cluster is that value).
func shortHas(a, letters, valued string) bool {
	if len(a) < 2 || a[0] != '-' || a[1] == '-' {
		return false
	}
	for _, r := range a[1:] {
		if strings.ContainsRune(letters, r) {
			return true
		}
		if strings.ContainsRune(valued, r) {
			return false
		}
	}
	return false
}

// operands counts non-option arguments; the short options in valued take the next argument.
func operands(args []string, valued string) int {
	n := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return n + len(args) - i - 1
		case len(a) == 2 && a[0] == '-' && strings.ContainsRune(valued, rune(a[1])):
			i++
		case strings.HasPrefix(a, "-") && a != "-":
		default:
			n++
		}
	}
	return n
}

// sedProblem accepts only quiet/extended-regexp style flags and print-range scripts.
func sedProblem(args []string) string {
	var scripts []string
	rest := args
	for len(rest) > 0 {
		a := rest[0]
		rest = rest[1:]
		switch {
		case a == "--":
			rest = nil
		case a == "-e" || a == "--expression":
			if len(rest) == 0 {
				return "-e needs a script"
			}
			scripts, rest = append(scripts, rest[0]), rest[1:]
		case strings.HasPrefix(a, "--expression="):
			scripts = append(scripts, strings.TrimPrefix(a, "--expression="))
		case a == "--quiet" || a == "--silent" || a == "--regexp-extended" || a == "--separate" || a == "--null-data" || a == "--unbuffered" || a == "--posix" || a == "--debug":
		case strings.HasPrefix(a, "--"):
			return "option " + a + " is not allowed"
		case strings.HasPrefix(a, "-") && a != "-":
			cluster := a[1:]
			for i, r := range cluster {
				if r == 'e' {
					if i+1 < len(cluster) {
						scripts = append(scripts, cluster[i+1:])
					} else if len(rest) == 0 {
						return "-e needs a script"
					} else {
						scripts, rest = append(scripts, rest[0]), rest[1:]
					}
					break
				}
				if !strings.ContainsRune("nErszu", r) {
					return fmt.Sprintf("option -%c is not allowed (no -i, no script files)", r)
				}
			}
		default:
			if len(scripts) == 0 {
				scripts = append(scripts, a)
			}
		}
	}
	if len(scripts) == 0 {
		return "no script"
	}
	for _, s := range scripts {
		if !sedRange.MatchString(strings.TrimSpace(s)) {
			return fmt.Sprintf("script %q is not a line or range print such as 1,20p", s)
		}
	}
	return ""
}

var envName = regexp.MustCompile(`^(?:CI|NO_COLOR|FORCE_COLOR|NODE_ENV|TZ|LANG|LANGUAGE|LC_[A-Z_]+)$`)

// envInner checks `env NAME=v… [--] ARGV…` and returns the wrapped argv.
func envInner(argv []string) ([]string, Decision, bool) {
	injection := func(why string) ([]string, Decision, bool) {
		return nil, deny(CodeEnvInjection, fmt.Sprintf("%q: %s.", strings.Join(argv, " "), why)), false
	}
	i := 1
	for ; i < len(argv); i++ {
		a := argv[i]
		eq := strings.IndexByte(a, '=')
		if eq <= 0 {
			break
		}
		if !envName.MatchString(a[:eq]) {
			return injection("env may not set " + a[:eq])
		}
		if len(a)-eq-1 > 1024 {
			return injection("the value of " + a[:eq] + " is longer than 1024 bytes")
		}
	}
	if i < len(argv) && argv[i] == "--" {
		i++
	} else if i < len(argv) && strings.HasPrefix(argv[i], "-") {
		return injection("env options are not allowed")
	}
	if i == len(argv) {
		return injection("env without a command prints the environment")
	}
	return argv[i:], Decision{}, true
}

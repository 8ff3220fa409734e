package shellargv_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"reasonixctl/core"
	"reasonixctl/core/shellargv"
)

// allReasons is every Reason the package declares; TestEveryReasonIsTested holds the tables
// below to at least two cases of each.
var allReasons = []shellargv.Reason{
	shellargv.ReasonEmpty, shellargv.ReasonTooLong, shellargv.ReasonControl, shellargv.ReasonSyntax, shellargv.ReasonSequence,
	shellargv.ReasonAndOr, shellargv.ReasonPipe, shellargv.ReasonBackground, shellargv.ReasonRedirect, shellargv.ReasonSubshell,
	shellargv.ReasonCommandSubst, shellargv.ReasonParameter, shellargv.ReasonArithmetic, shellargv.ReasonProcessSubst,
	shellargv.ReasonGlob, shellargv.ReasonBrace, shellargv.ReasonTilde, shellargv.ReasonAssignment, shellargv.ReasonFunction,
	shellargv.ReasonCompound, shellargv.ReasonComment, shellargv.ReasonDollarQuote, shellargv.ReasonSpecial,
	shellargv.ReasonContinuation, shellargv.ReasonNoProgram, shellargv.ReasonTrampoline, shellargv.ReasonNesting, shellargv.ReasonType,
}

func argv(words ...string) []string { return words }

// parseCases: a string, and either the argv Parse gives or the reason it refuses.
var parseCases = []struct {
	in     string
	argv   []string
	reason shellargv.Reason
}{
	// Plain commands, quote removal and concatenation.
	{in: "go test ./...", argv: argv("go", "test", "./...")},
	{in: "  git   status\t--short  \n", argv: argv("git", "status", "--short")},
	{in: `a'b'"c"`, argv: argv("abc")},
	{in: `git commit -m 'fix: it'\''s done'`, argv: argv("git", "commit", "-m", "fix: it's done")},
	{in: `echo "a \"quoted\" \\ word" 'single $x * ~ {a,b} # ! ` + "`x`" + `'`, argv: argv("echo", `a "quoted" \ word`, "single $x * ~ {a,b} # ! `x`")},
	{in: `printf "%s\n" x`, argv: argv("printf", `%s\n`, "x")},
	{in: `ls a\ b \; \| \& \$HOME \* \~ \# \{ \' \"`, argv: argv("ls", "a b", ";", "|", "&", "$HOME", "*", "~", "#", "{", "'", `"`)},
	{in: `git log --format=%H -n 1 -- a/b.go user@host:x,y +1`, argv: argv("git", "log", "--format=%H", "-n", "1", "--", "a/b.go", "user@host:x,y", "+1")},
	{in: "git commit -m 'line one\nline two'", argv: argv("git", "commit", "-m", "line one\nline two")},
	{in: "git commit -m \"line one\nline two\"", argv: argv("git", "commit", "-m", "line one\nline two")},
	{in: `grep -n '' file`, argv: argv("grep", "-n", "", "file")},
	{in: `grep "" ""`, argv: argv("grep", "", "")},
	{in: "go test \\\n  ./...", argv: argv("go", "test", "./...")},
	{in: "go\\\n test", argv: argv("go", "test")},
	{in: "ls café", argv: argv("ls", "café")},
	{in: `echo "a\b" "\x"`, argv: argv("echo", `a\b`, `\x`)},
	{in: "\\ls", argv: argv("ls")},
	{in: "ls =cmd x=y", argv: argv("ls", "=cmd", "x=y")},           // literal to bash and sh; Command refuses it (zsh)
	{in: `"bash" -lc 'ls -l'`, argv: argv("bash", "-lc", "ls -l")}, // Parse does not unwrap
	{in: "echo if then fi", argv: argv("echo", "if", "then", "fi")},

	{in: "", reason: shellargv.ReasonEmpty},
	{in: " \t\n\n ", reason: shellargv.ReasonEmpty},
	{in: strings.Repeat("a", shellargv.MaxBytes+1), reason: shellargv.ReasonTooLong},
	{in: "echo" + strings.Repeat(" a", shellargv.MaxWords), reason: shellargv.ReasonTooLong},
	{in: "ls\x00-l", reason: shellargv.ReasonControl},
	{in: "ls 'a\x00b'", reason: shellargv.ReasonControl},
	{in: "ls -l\r\n", reason: shellargv.ReasonControl},
	{in: "ls \x1b[31mred", reason: shellargv.ReasonControl},
	{in: "ls 'a\u202eb'", reason: shellargv.ReasonControl},   // right-to-left override
	{in: "ls \"a\u200bb\"", reason: shellargv.ReasonControl}, // zero-width space
	{in: "ls \xff", reason: shellargv.ReasonControl},
	{in: "ls \x7f", reason: shellargv.ReasonControl},
	{in: "ls a\u2028b", reason: shellargv.ReasonControl},
	{in: `echo 'unclosed`, reason: shellargv.ReasonSyntax},
	{in: `echo "unclosed`, reason: shellargv.ReasonSyntax},
	{in: "then ls", reason: shellargv.ReasonSyntax},
	{in: "ls )", reason: shellargv.ReasonSyntax},
	{in: `echo a\`, reason: shellargv.ReasonSyntax},
	{in: "ls; rm -rf /", reason: shellargv.ReasonSequence},
	{in: "ls;", reason: shellargv.ReasonSequence},
	{in: "ls\nrm -rf /", reason: shellargv.ReasonSequence},
	{in: "ls\n\nrm x\n", reason: shellargv.ReasonSequence},
	{in: "make && make install", reason: shellargv.ReasonAndOr},
	{in: "make || rm -rf /", reason: shellargv.ReasonAndOr},
	{in: "cat x | sh", reason: shellargv.ReasonPipe},
	{in: "make |& tee log", reason: shellargv.ReasonPipe},
	{in: "sleep 100 &", reason: shellargv.ReasonBackground},
	{in: "server & curl x", reason: shellargv.ReasonBackground},
	{in: "ls > out", reason: shellargv.ReasonRedirect},
	{in: "go test ./... 2>&1", reason: shellargv.ReasonRedirect},
	{in: "cat <<EOF\nhi\nEOF", reason: shellargv.ReasonRedirect},
	{in: "cat <<< hi", reason: shellargv.ReasonRedirect},
	{in: "ls &>/dev/null", reason: shellargv.ReasonRedirect},
	{in: "< in cat", reason: shellargv.ReasonRedirect},
	{in: "(cd /; rm -rf x)", reason: shellargv.ReasonSubshell},
	{in: "(ls)", reason: shellargv.ReasonSubshell},
	{in: "echo $(rm -rf /)", reason: shellargv.ReasonCommandSubst},
	{in: "echo `id`", reason: shellargv.ReasonCommandSubst},
	{in: `echo "$(id)"`, reason: shellargv.ReasonCommandSubst},
	{in: "echo \"`id`\"", reason: shellargv.ReasonCommandSubst},
	{in: "echo $HOME", reason: shellargv.ReasonParameter},
	{in: "echo ${HOME}", reason: shellargv.ReasonParameter},
	{in: `echo "$1"`, reason: shellargv.ReasonParameter},
	{in: "echo a$", reason: shellargv.ReasonParameter},
	{in: `echo "cost: $"`, reason: shellargv.ReasonParameter},
	{in: "echo $((1+2))", reason: shellargv.ReasonArithmetic},
	{in: "((x++))", reason: shellargv.ReasonArithmetic},
	{in: "let x=1", reason: shellargv.ReasonArithmetic},
	{in: "diff <(ls a) <(ls b)", reason: shellargv.ReasonProcessSubst},
	{in: "tee >(sh)", reason: shellargv.ReasonProcessSubst},
	{in: "rm *", reason: shellargv.ReasonGlob},
	{in: "ls file?.go", reason: shellargv.ReasonGlob},
	{in: "ls [ab].go", reason: shellargv.ReasonGlob},
	{in: "[ -f x ]", reason: shellargv.ReasonGlob},
	{in: "ls @(a|b)", reason: shellargv.ReasonGlob},
	{in: "echo {a,b}", reason: shellargv.ReasonBrace},
	{in: "touch x{1..9}", reason: shellargv.ReasonBrace},
	{in: "find . -exec cat {} +", reason: shellargv.ReasonBrace},
	{in: "cat ~/.ssh/id_rsa", reason: shellargv.ReasonTilde},
	{in: "ls --dir=~root", reason: shellargv.ReasonTilde},
	{in: "FOO=1 make", reason: shellargv.ReasonAssignment},
	{in: "PATH=/tmp/evil git status", reason: shellargv.ReasonAssignment},
	{in: "FOO=1", reason: shellargv.ReasonAssignment},
	{in: "export FOO=1", reason: shellargv.ReasonAssignment},
	{in: "declare -x A=1", reason: shellargv.ReasonAssignment},
	{in: "f() { rm -rf /; }", reason: shellargv.ReasonFunction},
	{in: "function git { rm x; }", reason: shellargv.ReasonFunction},
	{in: "if true; then ls; fi", reason: shellargv.ReasonCompound},
	{in: "for f in a b; do rm $f; done", reason: shellargv.ReasonCompound},
	{in: "while true; do ls; done", reason: shellargv.ReasonCompound},
	{in: "until false; do ls; done", reason: shellargv.ReasonCompound},
	{in: "case x in x) ls;; esac", reason: shellargv.ReasonCompound},
	{in: "{ ls; }", reason: shellargv.ReasonCompound},
	{in: "[[ -f x ]]", reason: shellargv.ReasonCompound},
	{in: "time make", reason: shellargv.ReasonCompound},
	{in: "! make", reason: shellargv.ReasonCompound},
	{in: "coproc ls", reason: shellargv.ReasonCompound},
	{in: "ls # rm -rf /", reason: shellargv.ReasonComment},
	{in: "# only a comment", reason: shellargv.ReasonComment},
	{in: "ls\n# trailing", reason: shellargv.ReasonComment},
	{in: "curl http://x/#frag", reason: shellargv.ReasonComment},
	{in: `echo $'\x41'`, reason: shellargv.ReasonDollarQuote},
	{in: `echo $"translated"`, reason: shellargv.ReasonDollarQuote},
	{in: "echo !!", reason: shellargv.ReasonSpecial},
	{in: `echo "hi!"`, reason: shellargv.ReasonSpecial},
	{in: "git log a^b", reason: shellargv.ReasonSpecial},
	{in: "ls a\u00a0b", reason: shellargv.ReasonSpecial},     // no-break space, unquoted: one word that reads as two
	{in: "ls \u00e9\u0301", reason: shellargv.ReasonSpecial}, // an unquoted combining mark
	{in: "l\\\ns", reason: shellargv.ReasonContinuation},
	{in: "rm -r\\\nf x", reason: shellargv.ReasonContinuation},
	{in: "echo \"a\\\nb\"", reason: shellargv.ReasonContinuation},
	{in: "echo 'a'\\\nb", reason: shellargv.ReasonContinuation},
	{in: "echo a\\\n'b'", reason: shellargv.ReasonContinuation},
	{in: "echo 'a\\'\\\nb", reason: shellargv.ReasonContinuation},
	{in: "echo \\\\\\\nb", reason: shellargv.ReasonContinuation},
	{in: "echo 'a\\\nb'", argv: argv("echo", "a\\\nb")},
	{in: "echo a\\\\\nb", reason: shellargv.ReasonSequence},
	{in: "echo a\\\n", argv: argv("echo", "a")},
	{in: "echo \"a\\\\\nb\"", argv: argv("echo", "a\\\nb")},
	{in: "'if' true", reason: shellargv.ReasonCompound},
	{in: `"{" ls`, reason: shellargv.ReasonCompound},
	{in: "A''=1 ls", reason: shellargv.ReasonAssignment},
	{in: "'export' A=1", reason: shellargv.ReasonAssignment},
	{in: `"let" x=1`, reason: shellargv.ReasonArithmetic},
	{in: "noglob ls", argv: argv("noglob", "ls")}, // a program to bash; Command refuses it (zsh)
	{in: "ls if then '{' '}' '!' export A=1 =x", argv: argv("ls", "if", "then", "{", "}", "!", "export", "A=1", "=x")},
	{in: "''", reason: shellargv.ReasonNoProgram},
	{in: `"" -rf /`, reason: shellargv.ReasonNoProgram},
}

func TestParse(t *testing.T) {
	for _, c := range parseCases {
		got, err := shellargv.Parse(c.in)
		check(t, "Parse", c.in, got, err, c.argv, c.reason)
	}
}

// check compares a result with the argv wanted, or the refusal's reason when reason is set.
func check(t *testing.T, fn string, in any, got []string, err error, want []string, reason shellargv.Reason) {
	t.Helper()
	if reason == "" {
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%s(%q) = %q, %v; want %q", fn, in, got, err, want)
		}
		return
	}
	var r *shellargv.Refusal
	if !errors.As(err, &r) {
		t.Errorf("%s(%q) = %q, %v; want a refusal (%s)", fn, in, got, err, reason)
		return
	}
	if got != nil {
		t.Errorf("%s(%q) refused with argv %q", fn, in, got)
	}
	if len(r.Detail) > 300 {
		t.Errorf("%s(%q) refused with a detail of %d bytes", fn, in, len(r.Detail))
	}
	if r.Reason != reason || r.Detail == "" || !strings.Contains(err.Error(), string(reason)) {
		t.Errorf("%s(%q) refused %s (%q); want %s", fn, in, r.Reason, r.Detail, reason)
	}
}

// unwrapCases: an argv, and the argv Unwrap gives or the reason it refuses.
var unwrapCases = []struct {
	in     []string
	argv   []string
	reason shellargv.Reason
}{
	{in: argv("go", "test", "./..."), argv: argv("go", "test", "./...")},
	{in: argv("git", "commit", "-m", "a | b; c $(d)"), argv: argv("git", "commit", "-m", "a | b; c $(d)")}, // not a shell: words are words
	{in: argv("bash", "-lc", "go test ./..."), argv: argv("go", "test", "./...")},
	{in: argv("bash", "-c", "go vet"), argv: argv("go", "vet")},
	{in: argv("sh", "-c", "ls -l"), argv: argv("ls", "-l")},
	{in: argv("/bin/bash", "-lc", "git status"), argv: argv("git", "status")},
	{in: argv("/usr/bin/bash", "-cl", "git status"), argv: argv("git", "status")},
	{in: argv("/usr/bin/env", "bash", "-c", "make lint"), argv: argv("make", "lint")},
	{in: argv("env", "sh", "-c", "make"), argv: argv("make")},
	{in: argv("zsh", "-lc", "ls"), argv: argv("ls")},
	{in: argv("zsh", "-l", "-c", "ls -a"), argv: argv("ls", "-a")},
	{in: argv("bash", "--login", "-c", "ls"), argv: argv("ls")},
	{in: argv("bash", "-c", "-l", "ls"), argv: argv("ls")},
	{in: argv("dash", "-c", "ls"), argv: argv("ls")},
	{in: argv("bash", "-lc", `sh -c 'ls'`), argv: argv("ls")},
	{in: argv("bash", "-lc", `bash -lc "sh -c 'git status'"`), argv: argv("git", "status")},
	{in: argv("bash", "-lc", `env bash -c 'go test'`), argv: argv("go", "test")},
	{in: argv("zsh", "-c", "ls '=x'"), argv: argv("ls", "=x")},
	// Not trampolines: returned as they are, for the policy to judge.
	{in: argv("bash", "script.sh"), argv: argv("bash", "script.sh")},
	{in: argv("bash"), argv: argv("bash")},
	{in: argv("./bash", "-c", "ls"), argv: argv("./bash", "-c", "ls")},
	{in: argv("/tmp/x/sh", "-c", "ls"), argv: argv("/tmp/x/sh", "-c", "ls")},
	{in: argv("fish", "-c", "ls"), argv: argv("fish", "-c", "ls")},
	{in: argv("env", "-i", "bash", "-c", "ls"), argv: argv("env", "-i", "bash", "-c", "ls")},
	{in: argv("python3", "-c", "print(1)"), argv: argv("python3", "-c", "print(1)")},

	{in: argv(), reason: shellargv.ReasonEmpty},
	{in: nil, reason: shellargv.ReasonEmpty},
	{in: argv("", "-rf"), reason: shellargv.ReasonNoProgram},
	{in: argv("bash", "-c", "'' x"), reason: shellargv.ReasonNoProgram},
	{in: argv("ls", "a\x00b"), reason: shellargv.ReasonControl},
	{in: argv("git", "commit", "-m", "a\u202eb"), reason: shellargv.ReasonControl},
	{in: make([]string, shellargv.MaxWords+1), reason: shellargv.ReasonTooLong},
	{in: argv("ls", strings.Repeat("a", shellargv.MaxBytes+1)), reason: shellargv.ReasonTooLong},
	{in: argv("bash", "-lc", "go test ./... | tee log"), reason: shellargv.ReasonPipe},
	{in: argv("/bin/bash", "-lc", "cd sub && make"), reason: shellargv.ReasonAndOr},
	{in: argv("sh", "-c", "rm -rf $HOME"), reason: shellargv.ReasonParameter},
	{in: argv("bash", "-c", ""), reason: shellargv.ReasonEmpty},
	{in: argv("zsh", "-c", "ls =x"), reason: shellargv.ReasonSpecial},
	{in: argv("zsh", "-lc", "=rm -rf x"), reason: shellargv.ReasonSpecial},
	{in: argv("bash", "-xc", "ls"), reason: shellargv.ReasonTrampoline},
	{in: argv("bash", "-ic", "ls"), reason: shellargv.ReasonTrampoline},
	{in: argv("bash", "-o", "pipefail", "-c", "ls"), reason: shellargv.ReasonTrampoline},
	{in: argv("bash", "--norc", "-c", "ls"), reason: shellargv.ReasonTrampoline},
	{in: argv("bash", "-c"), reason: shellargv.ReasonTrampoline},
	{in: argv("bash", "-c", "ls", "arg0", "x"), reason: shellargv.ReasonTrampoline},
	{in: argv("bash", "-c", "-c", "ls"), reason: shellargv.ReasonTrampoline},
	{in: argv("bash", "-c", "--", "ls"), reason: shellargv.ReasonTrampoline},
	{in: argv("bash", "--", "script.sh", "-c"), argv: argv("bash", "--", "script.sh", "-c")},
	{in: argv("bash", "-lc", `bash -lc "bash -lc 'bash -lc ls'"`), reason: shellargv.ReasonNesting},
	{in: argv("sh", "-c", `sh -c "sh -c 'sh -c \"ls\"'"`), reason: shellargv.ReasonNesting},
	{in: argv("bash", "-lc", `bash -xc ls`), reason: shellargv.ReasonTrampoline},
}

func TestUnwrap(t *testing.T) {
	for _, c := range unwrapCases {
		got, err := shellargv.Unwrap(c.in)
		check(t, "Unwrap", c.in, got, err, c.argv, c.reason)
	}
	// What Unwrap returns is its own: changing it leaves the caller's argv alone.
	in := argv("go", "test")
	got, _ := shellargv.Unwrap(in)
	got[0] = "rm"
	if in[0] != "go" {
		t.Errorf("Unwrap returned the caller's slice")
	}
}

// commandCases: a rawInput command field as JSON decodes it, and the argv Command gives or the
// reason it refuses.
var commandCases = []struct {
	in     any
	argv   []string
	reason shellargv.Reason
}{
	{in: "go test ./...", argv: argv("go", "test", "./...")},
	{in: `git commit -m "fix it"`, argv: argv("git", "commit", "-m", "fix it")},
	{in: `bash -lc 'go test ./...'`, argv: argv("go", "test", "./...")},
	{in: []any{"/bin/bash", "-lc", "go test ./..."}, argv: argv("go", "test", "./...")},
	{in: []any{"git", "status"}, argv: argv("git", "status")},
	{in: []string{"sh", "-c", "make lint"}, argv: argv("make", "lint")},
	{in: "ls '=x'", argv: argv("ls", "=x")},

	{in: nil, reason: shellargv.ReasonType},
	{in: 42.0, reason: shellargv.ReasonType},
	{in: map[string]any{"command": "ls"}, reason: shellargv.ReasonType},
	{in: []any{"ls", 1.0}, reason: shellargv.ReasonType},
	{in: []any{"ls", nil}, reason: shellargv.ReasonType},
	{in: "", reason: shellargv.ReasonEmpty},
	{in: []any{}, reason: shellargv.ReasonEmpty},
	{in: "=ls x", reason: shellargv.ReasonSpecial}, // the shell that runs it may be zsh
	{in: "ls =x", reason: shellargv.ReasonSpecial},
	{in: "noglob rm *.go", reason: shellargv.ReasonGlob},
	{in: "noglob rm x", reason: shellargv.ReasonCompound},
	{in: []any{"noglob", "rm", "x"}, argv: argv("noglob", "rm", "x")},
	{in: "go test ./... 2>&1 | tail", reason: shellargv.ReasonPipe},
	{in: "go test ./... 2>&1", reason: shellargv.ReasonRedirect},
	{in: []any{"bash", "-lc", "cat x > y"}, reason: shellargv.ReasonRedirect},
	{in: `bash -lc "ls | sh"`, reason: shellargv.ReasonPipe},
	{in: []any{"", "x"}, reason: shellargv.ReasonNoProgram},
}

func TestCommand(t *testing.T) {
	for _, c := range commandCases {
		got, err := shellargv.Command(c.in)
		check(t, "Command", c.in, got, err, c.argv, c.reason)
	}
}

// TestEveryReasonIsTested: each reason is met by at least two cases of the tables above.
func TestEveryReasonIsTested(t *testing.T) {
	count := map[shellargv.Reason]int{}
	for _, c := range parseCases {
		count[c.reason]++
	}
	for _, c := range unwrapCases {
		count[c.reason]++
	}
	for _, c := range commandCases {
		count[c.reason]++
	}
	for _, r := range allReasons {
		if count[r] < 2 {
			t.Errorf("reason %s has %d cases, want at least 2", r, count[r])
		}
	}
	if len(count)-1 != len(allReasons) {
		t.Errorf("the tables name %d reasons, allReasons %d", len(count)-1, len(allReasons))
	}
}

// TestQuotedWordsRoundTrip: an argv quoted by core.ShellWords parses back to itself, whatever
// its words hold (short of the characters Parse refuses to read at all).
func TestQuotedWordsRoundTrip(t *testing.T) {
	for _, words := range [][]string{
		{"go", "test", "./..."},
		{"git", "commit", "-m", "it's a \"test\"; rm -rf / && $(id) `id` ${x} * ? [a] {a,b} ~ # ! ^ \\ \n\t end"},
		{"x", "", "''", `'\''`, "=x", "-", "--", "a b", "café", "日本"},
	} {
		s := core.ShellWords(words)
		got, err := shellargv.Parse(s)
		if err != nil || !slices.Equal(got, words) {
			t.Errorf("Parse(ShellWords(%q)) = Parse(%q) = %q, %v", words, s, got, err)
		}
	}
}

// FuzzParse: Parse never panics; an argv it returns names a program, holds no NUL, and
// survives quoting by core.ShellWords and parsing again; Command on the same string accepts
// only what Parse accepts, with the same argv unless it unwrapped a shell; a refusal is always a
// *Refusal with a known reason.
func FuzzParse(f *testing.F) {
	for _, c := range parseCases {
		if len(c.in) < 4096 {
			f.Add(c.in)
		}
	}
	for _, c := range commandCases {
		if s, ok := c.in.(string); ok {
			f.Add(s)
		}
	}
	for _, c := range unwrapCases {
		if len(c.in) > 0 && len(c.in) < 8 {
			f.Add(core.ShellWords(c.in))
		}
	}
	known := map[shellargv.Reason]bool{}
	for _, r := range allReasons {
		known[r] = true
	}
	refusal := func(t *testing.T, fn, s string, err error) {
		t.Helper()
		var r *shellargv.Refusal
		if !errors.As(err, &r) || !known[r.Reason] || r.Detail == "" {
			t.Fatalf("%s(%q): %v is not a refusal with a known reason", fn, s, err)
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := shellargv.Parse(s)
		strict, strictErr := shellargv.Command(s)
		if err != nil {
			refusal(t, "Parse", s, err)
			if strictErr == nil {
				t.Fatalf("Command(%q) = %q, but Parse refuses: %v", s, strict, err)
			}
			refusal(t, "Command", s, strictErr)
			return
		}
		if len(got) == 0 || got[0] == "" {
			t.Fatalf("Parse(%q) = %q: no program", s, got)
		}
		for _, w := range got {
			if strings.ContainsRune(w, 0) {
				t.Fatalf("Parse(%q) = %q: a word holds NUL", s, got)
			}
		}
		quoted := core.ShellWords(got)
		again, err := shellargv.Parse(quoted)
		if err != nil || !slices.Equal(again, got) {
			t.Fatalf("Parse(%q) = %q, but Parse(ShellWords(…)) = Parse(%q) = %q, %v", s, got, quoted, again, err)
		}
		if strictErr != nil {
			refusal(t, "Command", s, strictErr)
			return
		}
		if unwrapped, err := shellargv.Unwrap(got); err != nil || !slices.Equal(strict, unwrapped) {
			t.Fatalf("Command(%q) = %q, but Unwrap(Parse(…)) = %q, %v", s, strict, unwrapped, err)
		}
	})
}

package shellargv_test

import (
	"context"
	"math/rand/v2"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"reasonixctl/core/shellargv"
)

// shellWords is what shell makes of each command as the words of `set -- command`: the words
// it would pass to a program after quote removal. ok is false when the shell is not installed.
// The commands must be ones Parse accepts: they are run, 500 to a shell.
func shellWords(t *testing.T, shell string, commands []string) (words [][]string, ok bool) {
	t.Helper()
	bin, err := exec.LookPath(shell)
	if err != nil {
		return nil, false
	}
	for start := 0; start < len(commands); start += 500 {
		batch := commands[start:min(start+500, len(commands))]
		var script strings.Builder
		for _, c := range batch {
			// Blanks before the command are no part of its words, but after `set --` a newline
			// would end it. Each command's words end in NUL, and the command in \1.
			script.WriteString("set -- " + strings.TrimLeft(c, " \t\n") + "\nprintf '%s\\0' \"$@\"; printf '\\1'\n")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		cmd := exec.CommandContext(ctx, bin, "-c", script.String())
		cmd.Dir = t.TempDir()
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + cmd.Dir}
		out, err := cmd.Output()
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", shell, err)
		}
		outputs := strings.Split(string(out), "\x01")
		if len(outputs) != len(batch)+1 {
			t.Fatalf("%s: %d outputs for %d commands", shell, len(outputs)-1, len(batch))
		}
		for _, o := range outputs[:len(batch)] {
			w := strings.Split(o, "\x00")
			words = append(words, w[:len(w)-1])
		}
	}
	return words, true
}

// agree checks that each installed shell reads every command as want says.
func agree(t *testing.T, commands []string, want [][]string, shells ...string) {
	t.Helper()
	for _, sh := range shells {
		got, ok := shellWords(t, sh, commands)
		if !ok {
			t.Logf("%s is not installed", sh)
			continue
		}
		for i, c := range commands {
			if !slices.Equal(got[i], want[i]) {
				t.Errorf("%s reads %q as %q; shellargv as %q", sh, c, got[i], want[i])
			}
		}
	}
}

// TestShellsAgree: for every command the tables accept, the shells that are installed read the
// same words: bash and sh for Parse, and zsh too for Command, which reads as strictly as zsh
// needs.
func TestShellsAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("runs shells")
	}
	var posix, strict []string
	var posixWords, strictWords [][]string
	for _, c := range parseCases {
		if c.argv != nil {
			posix, posixWords = append(posix, c.in), append(posixWords, c.argv)
			// Command accepts what zsh reads the same; it also unwraps, which no shell does here.
			if got, err := shellargv.Command(c.in); err == nil && slices.Equal(got, c.argv) {
				strict, strictWords = append(strict, c.in), append(strictWords, c.argv)
			}
		}
	}
	for _, c := range commandCases {
		if s, ok := c.in.(string); ok && c.argv != nil {
			words, err := shellargv.Parse(s)
			if err != nil {
				t.Errorf("Command accepts %q, Parse refuses it: %v", s, err)
				continue
			}
			strict, strictWords = append(strict, s), append(strictWords, words)
		}
	}
	agree(t, posix, posixWords, "bash", "sh", "dash")
	agree(t, strict, strictWords, "bash", "sh", "dash", "zsh")
}

// TestShellsAgreeOnRandomCommands: commands glued at random from pieces of shell syntax, of
// which Parse accepts some thousands, read the same in bash and sh (and, those Command accepts,
// in zsh).
func TestShellsAgreeOnRandomCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("runs shells")
	}
	pieces := []string{"a", "b", "=", "-", "--", ".", "/", " ", " ", "\t", "\n", "'", "'", `"`, `"`, `\`, `\`, `\\`, `\'`, `\"`, `\ `,
		"''", `""`, `'\''`, "\\\n", "\\\n\\\n", "\"\\\n\"", "'\\\n'", "$", "$'", `"$"`, `"\$"`, "!", "#", "~", "*", "?", "[", "{", "}",
		",", ":", "@", "%", "+", "^", "&", ";", "|", "(", ")", "<", ">", "`", "x=", "=x", "a=b", "-c", "é", "日", "\u00a0"}
	r := rand.New(rand.NewPCG(40, 2))
	var posix, strict []string
	var posixWords, strictWords [][]string
	for tries := 0; len(posix) < 5000 && tries < 1_000_000; tries++ {
		var b strings.Builder
		b.WriteString("x ")
		for range 1 + r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		words, err := shellargv.Parse(s)
		if err != nil {
			continue
		}
		posix, posixWords = append(posix, s), append(posixWords, words)
		if _, err := shellargv.Command(s); err == nil {
			strict, strictWords = append(strict, s), append(strictWords, words)
		}
	}
	agree(t, posix, posixWords, "bash", "sh", "dash")
	agree(t, strict, strictWords, "zsh")
}

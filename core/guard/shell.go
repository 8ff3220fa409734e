package guard

import (
	"fmt"
	"strings"
)

// splitCommand reads a shell command line the way a POSIX shell would split it into simple
// commands and words, for the subset the guard can judge without running anything: words,
// quotes, backslash escapes, and the list operators | || && ; and newline. Anything that could
// run or write beyond the words themselves — redirection, substitution, subshells, background
// jobs, globs, brace and tilde expansion, variables, comments, assignments — is refused with the
// reason, so that the command counts as not a simple read.
func splitCommand(line string) ([][]string, error) {
	var (
		cmds   [][]string
		cur    []string
		word   strings.Builder
		inWord bool
	)
	endWord := func() {
		if inWord {
			cur = append(cur, word.String())
			word.Reset()
			inWord = false
		}
	}
	endCmd := func(op string) error {
		endWord()
		if len(cur) == 0 {
			if op == "" {
				return nil
			}
			return fmt.Errorf("%q has no command before it", op)
		}
		cmds = append(cmds, cur)
		cur = nil
		return nil
	}
	refuse := func(what string) ([][]string, error) {
		return nil, fmt.Errorf("it uses %s", what)
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			endWord()
		case c == '\n' || c == ';':
			if err := endCmd(string(c)); err != nil && c == ';' {
				return nil, err
			}
		case c == '|':
			op := "|"
			if i+1 < len(line) && line[i+1] == '|' {
				op, i = "||", i+1
			} else if i+1 < len(line) && line[i+1] == '&' {
				return refuse("|& (stderr redirection)")
			}
			if err := endCmd(op); err != nil {
				return nil, err
			}
		case c == '&':
			if i+1 < len(line) && line[i+1] == '&' {
				i++
				if err := endCmd("&&"); err != nil {
					return nil, err
				}
				continue
			}
			return refuse("& (a background job or a redirection)")
		case c == '<' || c == '>':
			return refuse("redirection")
		case c == '(' || c == ')':
			return refuse("a subshell or a function")
		case c == '$' || c == '`':
			return refuse("substitution or a variable")
		case c == '*' || c == '?' || c == '[' || c == ']':
			return refuse("a glob, which expands to names the guard cannot see; quote it or name the files")
		case c == '{' || c == '}':
			return refuse("brace expansion or a group")
		case (c == '~' || c == '#') && !inWord:
			if c == '~' {
				return refuse("tilde expansion")
			}
			return refuse("a comment")
		case c == '\\':
			if i+1 >= len(line) {
				return refuse("a trailing backslash")
			}
			i++
			if line[i] != '\n' { // a backslash-newline joins lines
				word.WriteByte(line[i])
				inWord = true
			}
		case c == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return refuse("an unterminated single quote")
			}
			word.WriteString(line[i+1 : i+1+end])
			inWord = true
			i += end + 1
		case c == '"':
			j := i + 1
			for ; j < len(line) && line[j] != '"'; j++ {
				switch line[j] {
				case '$', '`':
					return refuse("substitution or a variable inside double quotes")
				case '\\':
					if j+1 < len(line) && strings.IndexByte("\"\\$`\n", line[j+1]) >= 0 {
						j++
						if line[j] == '\n' {
							continue
						}
					}
				}
				word.WriteByte(line[j])
			}
			if j >= len(line) {
				return refuse("an unterminated double quote")
			}
			inWord = true
			i = j
		default:
			if c == '=' && !inWord {
				return refuse("an assignment")
			}
			if c == '=' && len(cur) == 0 && isName(word.String()) {
				return refuse("an environment assignment before the command")
			}
			word.WriteByte(c)
			inWord = true
		}
	}
	if err := endCmd(""); err != nil {
		return nil, err
	}
	if len(cmds) == 0 {
		return nil, fmt.Errorf("it is empty")
	}
	return cmds, nil
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r != '_' && !(r >= 'a' && r <= 'z') && !(r >= 'A' && r <= 'Z') && (i == 0 || !(r >= '0' && r <= '9')) {
			return false
		}
	}
	return true
}

// shellScript returns the script of `bash -c SCRIPT` (also sh, zsh, dash, with -lc or -l -c),
// the form a shell tool may hand over; ok is false for any other command.
func shellScript(argv []string) (string, bool) {
	switch executableName(argv[0]) {
	case "bash", "sh", "zsh", "dash":
	default:
		return "", false
	}
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "-c" || a == "-lc" || a == "-cl":
			if i+1 < len(argv) && i+2 == len(argv) {
				return argv[i+1], true
			}
			return "", false
		case a == "-l" || a == "--login":
		default:
			return "", false
		}
	}
	return "", false
}

func executableName(argv0 string) string {
	if i := strings.LastIndexByte(argv0, '/'); i >= 0 {
		return argv0[i+1:]
	}
	return argv0
}

package acptest

import "strings"

// StaticArgv splits a shell command into its argv when it is one simple command whose words
// are known without running a shell: no operators, redirections, substitutions, expansions or
// globs. Only then does the worker attach argv metadata to a permission request.
func StaticArgv(cmd string) (argv []string, ok bool) {
	var word strings.Builder
	inWord := false
	var quote rune
	for _, r := range cmd {
		switch {
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				word.WriteRune(r)
			}
		case quote == '"':
			switch r {
			case '"':
				quote = 0
			case '$', '`', '\\':
				return nil, false
			default:
				word.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				argv = append(argv, word.String())
				word.Reset()
				inWord = false
			}
		case strings.ContainsRune("|&;<>()$`\\*?[]{}~#!\n\r", r):
			return nil, false
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, false
	}
	if inWord {
		argv = append(argv, word.String())
	}
	if len(argv) == 0 || strings.Contains(argv[0], "=") {
		return nil, false // empty, or an environment assignment prefix
	}
	return argv, true
}

// readOnlyCommand reports whether a simple command only reads, so that read-only approval
// lets it run without asking (as the worker does for ls or cat).
func readOnlyCommand(argv []string) bool {
	switch argv[0] {
	case "ls", "cat", "pwd", "head", "tail", "wc", "grep", "rg", "stat", "file", "echo", "true", "which", "diff":
		return true
	case "git":
		return len(argv) > 1 && (argv[1] == "status" || argv[1] == "diff" || argv[1] == "log" || argv[1] == "show")
	}
	return false
}

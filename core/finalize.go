package core

import (
	"strings"
	"time"
)

// Limits of finalize: the bytes of a verification log kept, the secret scanner's time, the
// length of a default commit subject.
const (
	VerificationLogMax = 4 << 20
	ScannerTimeout     = 5 * time.Minute
	commitSubjectMax   = 72
)

// DefaultCommitMessage is the commit message finalize uses when the supervisor gives none.
func DefaultCommitMessage(taskID, objective string) string {
	return TruncateText(taskID+": "+firstLine(objective), commitSubjectMax)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(line)
}

// ShellWords renders argv for a person to read and paste into a POSIX shell: a word made only
// of characters no shell treats specially stays bare, every other word is single-quoted. It is
// the one quoter: an allowlist, so a character nobody thought of (`!`, a newline, non-ASCII)
// is quoted rather than left to the shell.
func ShellWords(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") != "" {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}

package core

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"reasonixctl/core/contract"
	"reasonixctl/core/redact"
	"reasonixctl/sandbox"
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

// CheckLog is a verification command's log as it is kept: the command, its directory, a status
// line, then its output with secrets redacted, at most verificationLogMax bytes.
func CheckLog(v contract.Verification, status string, res sandbox.Result) []byte {
	argvJSON, _ := json.Marshal(v.Argv)
	var log bytes.Buffer
	fmt.Fprintf(&log, "$ %s\ncwd: %s\n%s\n", argvJSON, v.Cwd, status)
	log.WriteString(redact.Secrets(string(res.Stdout)))
	log.WriteString("\n")
	log.WriteString(redact.Secrets(string(res.Stderr)))
	text := log.Bytes()
	if len(text) > VerificationLogMax {
		text = text[:VerificationLogMax]
	}
	return text
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

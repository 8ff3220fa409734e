package baseline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"reasonixctl/core"
	"reasonixctl/core/contract"
	"reasonixctl/core/redact"
	"reasonixctl/sandbox"
)

// CheckLog is a verification command's log as it is kept: the command, its directory, a status
// line, then its output with secrets redacted, at most core.VerificationLogMax bytes. Finalize's
// logs and the base commit's are the same form, so a person reads both alike.
func CheckLog(v contract.Verification, status string, res sandbox.Result) []byte {
	argvJSON, _ := json.Marshal(v.Argv)
	var log bytes.Buffer
	fmt.Fprintf(&log, "$ %s\ncwd: %s\n%s\n", argvJSON, v.Cwd, status)
	log.WriteString(redact.Secrets(string(res.Stdout)))
	log.WriteString("\n")
	log.WriteString(redact.Secrets(string(res.Stderr)))
	text := log.Bytes()
	if len(text) > core.VerificationLogMax {
		text = text[:core.VerificationLogMax]
	}
	return text
}

// logStatusRe is a status line of a log's header: finalize's `exit: 1 timeout: false`, a base
// run's `base: <commit>` and `exit: 1`.
var logStatusRe = regexp.MustCompile(`^(?:base: [0-9a-f]+|exit: -?\d+(?: timeout: (?:true|false))?)$`)

// LogOutput is what the command printed, from a log CheckLog wrote: its header (the command,
// its directory, its status lines) taken off.
func LogOutput(log []byte) string {
	rest := string(log)
	take := func(ok func(line string) bool) bool {
		line, after, found := strings.Cut(rest, "\n")
		if !found || !ok(line) {
			return false
		}
		rest = after
		return true
	}
	if !take(func(l string) bool { return strings.HasPrefix(l, "$ ") }) || !take(func(l string) bool { return strings.HasPrefix(l, "cwd: ") }) {
		return string(log)
	}
	for range 2 {
		if !take(logStatusRe.MatchString) {
			break
		}
	}
	return rest
}

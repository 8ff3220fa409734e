package baseline

import (
	"bytes"
	"encoding/json"
	"fmt"

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

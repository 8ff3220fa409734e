package engine

import (
	"strings"

	"reasonixctl/core"
	"reasonixctl/core/contract"
)

// unfinished refuses a contract that still holds a draft's placeholders (`TODO: …` texts, the
// placeholder write scope): a worker given one would spend its turn on an objective nobody
// wrote. The error is invalid_contract, naming every field in details.placeholders and in
// details.issues.
func unfinished(c *contract.Contract) error {
	found := contract.Placeholders(c)
	if len(found) == 0 {
		return nil
	}
	paths := make([]string, len(found))
	for i, is := range found {
		paths[i] = is.Path
	}
	return core.Errorf(core.CodeInvalidContract, &core.UnfinishedDraft{Reason: "unfinished_draft", Placeholders: paths, Issues: toIssues(found)},
		"The contract is an unfinished draft: replace the placeholders in %s", strings.Join(paths, ", "))
}

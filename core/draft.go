package core

import (
	"fmt"
	"path/filepath"
	"strings"
)

// ContractDraft is a contract drafted from a repository's toolchains (package core/scaffold
// drafts it): its verification commands found and allowed, the fields a person still decides
// left as TODO text.
type ContractDraft struct {
	Root         string       `json:"root"`         // the repository root the commands run from
	JSON         []byte       `json:"json"`         // the contract, indented, fields in reading order
	Checks       []DraftCheck `json:"checks"`       // the verification commands it holds
	Skipped      []string     `json:"skipped"`      // commands found but refused by the policy, with why
	Placeholders []string     `json:"placeholders"` // fields a person still has to fill in
}

// DraftCheck is one verification command found in the repository.
type DraftCheck struct {
	ID        string   `json:"id"`        // verification id, e.g. "go-test"
	Argv      []string `json:"argv"`      // exact argv, run from Cwd
	Cwd       string   `json:"cwd"`       // repository-relative, "." for the root
	Source    string   `json:"source"`    // the file that declares it, e.g. "go.mod"
	Tools     []string `json:"tools"`     // executables it needs on PATH
	Criterion string   `json:"criterion"` // id of the automated criterion it proves
	Proves    string   `json:"proves"`    // the criterion's requirement
}

// DraftRequest asks for a contract drafted from the repository holding Dir.
type DraftRequest struct {
	// Dir is the checkout (or a folder inside it), absolute: the service may run elsewhere.
	Dir string `json:"dir"`
	// Check runs each command found on the checkout's HEAD first, sandboxed, and leaves out those
	// that fail there (as `contract init --check`).
	Check bool `json:"check,omitempty"`
}

// DraftResult is a drafted contract and where it was written: under the state directory, never
// into the checkout, which a task needs clean.
type DraftResult struct {
	Path  string        `json:"path"`
	Draft ContractDraft `json:"draft"`
	// Checked is what each command found did on HEAD, when the request asked to check.
	Checked []BaseCheck `json:"checked,omitempty"`
}

// ContractFileHint says where a contract belongs when one of the paths that make the checkout
// dirty looks like a contract file: outside the checkout, or ignored by git.
func ContractFileHint(paths []string) string {
	for _, p := range paths {
		base := strings.ToLower(filepath.Base(p))
		if strings.HasSuffix(base, ".json") && strings.Contains(base, "contract") {
			return fmt.Sprintf(" (%s looks like a contract: keep it outside the checkout — `reasonixctl contract init` writes drafts under the state directory — or have git ignore it)", p)
		}
	}
	return ""
}

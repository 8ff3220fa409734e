package core

import "reasonixctl/core/scaffold"

// ContractDraft is a contract drafted from a repository's toolchains: its verification
// commands found and allowed, the fields a person still decides left as TODO text.
type ContractDraft = scaffold.Draft

// DraftContract drafts a contract for the repository holding dir, as `reasonixctl contract init`
// does.
func DraftContract(dir string) (ContractDraft, error) {
	return scaffold.New(scaffold.Options{Dir: dir})
}

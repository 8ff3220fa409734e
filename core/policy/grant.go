package policy

// Standing is the decision, with no contract, for argv run from cwd (slash-separated, relative
// to the worktree, "." for its root). A standing grant may cover a command only when this is
// Askable: what the policy always denies stays denied whatever is granted.
func Standing(argv []string, cwd string) Decision {
	if len(argv) == 0 {
		return deny(CodeMetadataInvalid, "The command has no argv.")
	}
	return classifyArgv(argv, cwd, nil)
}

package contract

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// PathError says why a contract path or cwd was refused.
type PathError struct {
	Path   string // the value as given
	Reason string
}

func (e *PathError) Error() string { return fmt.Sprintf("%s: %q", e.Reason, e.Path) }

// NormalisePath turns a repository-relative path or glob into its canonical form: trimmed,
// backslashes turned into slashes, "." and empty segments dropped. It refuses NUL bytes,
// absolute paths ("/x", "C:x"), negated globs ("!x") and ".." segments. The repository root
// itself ("." or "") is accepted, as ".", only when allowRoot is set (context paths and cwds).
func NormalisePath(p string, allowRoot bool) (string, error) {
	t := trimJS(p)
	switch {
	case t == "" || strings.ContainsRune(t, 0):
		return "", &PathError{p, "must be a non-empty repository-relative path"}
	case t[0] == '/' || t[0] == '\\' || (len(t) >= 2 && t[1] == ':' && isASCIILetter(t[0])):
		return "", &PathError{p, "must not be absolute"}
	case t[0] == '!':
		return "", &PathError{p, "must not be a negated glob"}
	}
	var keep []string
	for _, seg := range strings.Split(strings.ReplaceAll(t, `\`, "/"), "/") {
		switch seg {
		case "..":
			return "", &PathError{p, "must not contain a '..' segment"}
		case "", ".":
		default:
			keep = append(keep, seg)
		}
	}
	if len(keep) == 0 {
		if !allowRoot {
			return "", &PathError{p, "must not resolve to the repository root"}
		}
		return ".", nil
	}
	joined := strings.Join(keep, "/")
	if joined != t {
		// Check the result again, so that it is a fixed point: "a /" leaves "a " and "./!x"
		// leaves "!x", which a later parse would trim or refuse, and a stored contract would
		// no longer re-parse to its own hash. Each pass removes backslashes or shortens.
		return NormalisePath(joined, allowRoot)
	}
	return joined, nil
}

func isASCIILetter(b byte) bool { return (b|0x20) >= 'a' && (b|0x20) <= 'z' }

// PathBase says what the relative paths of a contract are relative to.
type PathBase string

const (
	// PathBaseCwd (the default for new tasks) reads paths relative to the invocation cwd.
	PathBaseCwd PathBase = "cwd"
	// PathBaseRepository reads paths relative to the repository root (tasks of the earlier bridge).
	PathBaseRepository PathBase = "repository"
)

// ApplyPathBase returns the contract with its paths made relative to the repository root. With
// PathBaseCwd every scope, context and assertion path and every command cwd is prefixed by the
// real path of cwd relative to the real path of repoRoot; a cwd outside the repository is an
// error. With PathBaseRepository (or when cwd is the root) c itself is returned.
func ApplyPathBase(c *Contract, base PathBase, repoRoot, cwd string) (*Contract, error) {
	switch base {
	case PathBaseRepository:
		return c, nil
	case PathBaseCwd, "":
	default:
		return nil, fmt.Errorf("contract: unknown path_base %q", base)
	}
	prefix, err := cwdPrefix(repoRoot, cwd)
	if err != nil {
		return nil, err
	}
	return c.withPrefix(prefix), nil
}

func cwdPrefix(repoRoot, cwd string) (string, error) {
	root, err := filepath.EvalSymlinks(repoRoot)
	if err != nil {
		return "", fmt.Errorf("contract: repository root: %w", err)
	}
	dir, err := filepath.EvalSymlinks(cwd)
	if err != nil {
		return "", fmt.Errorf("contract: invocation cwd: %w", err)
	}
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(os.PathSeparator)) || filepath.IsAbs(rel) {
		return "", fmt.Errorf("contract: invocation cwd %s is outside the repository %s", cwd, repoRoot)
	}
	return NormalisePath(filepath.ToSlash(rel), true)
}

func joinPrefix(prefix, p string) string {
	switch {
	case prefix == ".":
		return p
	case p == ".":
		return prefix
	}
	return prefix + "/" + p
}

// withPrefix copies c with every path prefixed. Paths are already normalised and the prefix is a
// normalised directory, so joining needs no further checks.
func (c *Contract) withPrefix(prefix string) *Contract {
	if prefix == "." {
		return c
	}
	out := c.clone()
	for i := range out.VerifiedContext {
		out.VerifiedContext[i].Path = joinPrefix(prefix, out.VerifiedContext[i].Path)
	}
	for i := range out.WriteScope {
		out.WriteScope[i] = joinPrefix(prefix, out.WriteScope[i])
	}
	for i := range out.ForbiddenScope {
		out.ForbiddenScope[i] = joinPrefix(prefix, out.ForbiddenScope[i])
	}
	for i := range out.Verification {
		out.Verification[i].Cwd = joinPrefix(prefix, out.Verification[i].Cwd)
	}
	for i := range out.AllowedCommands {
		out.AllowedCommands[i].Cwd = joinPrefix(prefix, out.AllowedCommands[i].Cwd)
	}
	for i := range out.FileAssertions {
		out.FileAssertions[i].Path = joinPrefix(prefix, out.FileAssertions[i].Path)
	}
	return out
}

// trimJS trims the characters JavaScript's String.prototype.trim removes, so that trimmed text
// (and therefore the contract hash) agrees with the earlier bridge byte for byte.
func trimJS(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		switch r {
		case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
			return true
		}
		return r >= 0x2000 && r <= 0x200a
	})
}

// lenJS counts UTF-16 code units, the unit of JavaScript string lengths and so of the limits.
func lenJS(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r > 0xffff {
			n++
		}
	}
	return n
}

package gitx

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Source is the caller's checkout as seen at task creation.
type Source struct {
	Root      string // real path of the top level
	CommonDir string // real path of the common git directory
	ID        string // RepoID(Root, CommonDir)
	Base      string // the resolved base commit
}

// RepoID is the stable identity of a checkout: sha256(root "\0" commonDir), 24 hex digits.
func RepoID(root, commonDir string) string {
	sum := sha256.Sum256([]byte(root + "\x00" + commonDir))
	return hex.EncodeToString(sum[:])[:24]
}

var hex40 = regexp.MustCompile(`^[0-9a-f]{40}$`)

// validRev refuses what could be read as an option or could not be a revision.
func validRev(rev string) error {
	if rev == "" || strings.HasPrefix(rev, "-") || strings.ContainsFunc(rev, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return newErr(CodeInvalidRequest, ReasonBadRef, "%q is not a usable revision", rev)
	}
	return nil
}

// OpenSource resolves the checkout containing dir and its base commit (`<baseRef>^{commit}`),
// in one git process.
func OpenSource(ctx context.Context, dir, baseRef string) (Source, error) {
	if !filepath.IsAbs(dir) {
		return Source{}, badInput("repository path %q must be absolute", dir)
	}
	if err := validRev(baseRef); err != nil {
		return Source{}, err
	}
	out, err := gitCmd{at: inCheckout(dir), args: []string{"rev-parse", "--path-format=absolute",
		"--show-toplevel", "--git-common-dir", "--verify", "-q", baseRef + "^{commit}"}}.run(ctx)
	l := lines(out)
	if err != nil && len(l) < 2 {
		if ctx.Err() != nil {
			return Source{}, ctx.Err()
		}
		return Source{}, &Error{Code: CodeNotGitRepository, Reason: ReasonGitFailed,
			Message: dir + " is not inside a git work tree", Err: err}
	}
	if err != nil || len(l) != 3 || !hex40.MatchString(l[2]) {
		return Source{}, &Error{Code: CodeInvalidRequest, Reason: ReasonBadRef,
			Message: baseRef + " does not name a commit", Err: err}
	}
	root, err1 := filepath.EvalSymlinks(l[0])
	common, err2 := filepath.EvalSymlinks(l[1])
	if err1 != nil || err2 != nil {
		return Source{}, newErr(CodeNotGitRepository, ReasonGitFailed, "cannot resolve %s", dir)
	}
	return Source{Root: root, CommonDir: common, ID: RepoID(root, common), Base: l[2]}, nil
}

// CheckClean fails with dirty_repository, listing up to 50 paths, unless the checkout has no
// staged, unstaged or untracked change.
func (s Source) CheckClean(ctx context.Context) error {
	_, err := s.CleanHead(ctx)
	return err
}

// CleanHead is CheckClean that also returns the HEAD commit the same status read saw (empty
// when unborn), so that a caller can tell whether the clean checkout was at the base.
func (s Source) CleanHead(ctx context.Context) (string, error) {
	st, err := sourceStatus(ctx, s.Root, true)
	if err != nil {
		return "", wrap(CodeInternal, ReasonGitFailed, err)
	}
	if paths := st.paths(nil); len(paths) > 0 {
		return "", &Error{Code: CodeDirtyRepository, Reason: ReasonBadInput,
			Message: "the source checkout has uncommitted changes", Paths: limitPaths(paths)}
	}
	return st.head, nil
}

func sourceStatus(ctx context.Context, root string, branch bool) (status, error) {
	args := []string{"status", "--porcelain=v2", "-z", "--untracked-files=all"}
	if branch {
		args = append(args, "--branch")
	}
	out, err := gitCmd{at: inCheckout(root), args: args}.run(ctx)
	if err != nil {
		return status{}, err
	}
	return parseStatus(out)
}

// Identity is a commit author.
type Identity struct {
	Name  string
	Email string
}

// ResolveAuthor takes GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL from the environment and fills what
// is missing from `git config user.*`, read in dir with only HOME and XDG_CONFIG_HOME passed.
// Neither source yielding a field is invalid_request with the missing fields in Paths.
func ResolveAuthor(ctx context.Context, dir string) (Identity, error) {
	id := Identity{Name: strings.TrimSpace(os.Getenv("GIT_AUTHOR_NAME")), Email: strings.TrimSpace(os.Getenv("GIT_AUTHOR_EMAIL"))}
	needName, needEmail := id.Name == "", id.Email == ""
	if needName || needEmail {
		env := []string{"LC_ALL=C", "GIT_CONFIG_NOSYSTEM=1"}
		for _, k := range []string{"HOME", "XDG_CONFIG_HOME"} {
			if v := os.Getenv(k); v != "" {
				env = append(env, k+"="+v)
			}
		}
		out, err := gitCmd{at: inCheckout(dir), fullEnv: env, args: []string{"config", "--get-regexp", `^user\.(name|email)$`}}.run(ctx)
		if err != nil && exitCode(err) != 1 { // 1: no such key
			return id, wrap(CodeInternal, ReasonGitFailed, err)
		}
		for _, l := range lines(out) {
			k, v, _ := strings.Cut(l, " ")
			v = strings.TrimSpace(v)
			switch {
			case k == "user.name" && needName:
				id.Name = v
			case k == "user.email" && needEmail:
				id.Email = v
			}
		}
	}
	var missing []string
	if id.Name == "" {
		missing = append(missing, "name")
	}
	if id.Email == "" {
		missing = append(missing, "email")
	}
	if len(missing) > 0 {
		return id, &Error{Code: CodeInvalidRequest, Reason: ReasonMissingIdentity,
			Message: "no commit author: set GIT_AUTHOR_NAME/GIT_AUTHOR_EMAIL or git config user.name/user.email", Paths: missing}
	}
	return id, validIdentity(id)
}

func validIdentity(id Identity) error {
	for _, v := range []string{id.Name, id.Email} {
		if v == "" || strings.ContainsAny(v, "<>\n\r\x00") {
			return newErr(CodeInvalidRequest, ReasonMissingIdentity, "author %q <%s> is not usable", id.Name, id.Email)
		}
	}
	return nil
}

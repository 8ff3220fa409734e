package baseline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"reasonixctl/core"
	"reasonixctl/core/gitx"
	"reasonixctl/core/scaffold"
)

// DraftContract drafts a contract for the repository holding dir, as `reasonixctl contract init`
// does.
func DraftContract(dir string) (core.ContractDraft, error) {
	return scaffold.New(scaffold.Options{Dir: dir})
}

// DraftDir is where drafts for the repository at root live: a folder of its own under the
// state directory, never the checkout, which a task needs clean.
func DraftDir(stateDir, root string) string {
	sum := sha256.Sum256([]byte(root))
	name := filepath.Base(root)
	if name == "" || name == "." || name == string(filepath.Separator) {
		name = "repository"
	}
	return filepath.Join(stateDir, "drafts", name+"-"+hex.EncodeToString(sum[:])[:12])
}

// WriteDraft writes a draft's contract into DraftDir under a new name (contract-<time>.json,
// never replacing a file) and returns its path. `contract init` and the dashboard's new-task
// form both write here.
func WriteDraft(stateDir string, d core.ContractDraft, now time.Time) (string, error) {
	dir := DraftDir(stateDir, d.Root)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	stamp := now.UTC().Format("20060102-150405")
	for i := 1; i < 1000; i++ {
		name := "contract-" + stamp + ".json"
		if i > 1 {
			name = fmt.Sprintf("contract-%s-%d.json", stamp, i)
		}
		path := filepath.Join(dir, name)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		_, err = f.Write(d.JSON)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path)
			return "", err
		}
		return path, nil
	}
	return "", fmt.Errorf("%s holds too many drafts from %s", dir, stamp)
}

// CheckDraftOutput refuses to write a contract at path inside the checkout at root unless git
// ignores it there: a contract file that git sees makes the checkout dirty, and a task starts
// only from a clean one. The error says how to ignore it.
func CheckDraftOutput(ctx context.Context, root, path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil // not a directory we can resolve: no checkout to keep clean
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return nil // the folder does not exist: writing will fail on its own
	}
	target := filepath.Join(dir, filepath.Base(abs))
	rel, err := filepath.Rel(realRoot, target)
	if err != nil || !filepath.IsLocal(rel) {
		return nil // outside the checkout
	}
	ignored, err := gitx.IgnoredInCheckout(ctx, realRoot, target)
	if err != nil || !ignored {
		return core.Errorf(core.CodeInvalidRequest, &core.InsideCheckout{Reason: "inside_checkout", Path: target},
			"%s is inside the checkout %s and git does not ignore it: a task starts only from a clean checkout. "+
				"Leave out -o (drafts go under the state directory), use -o - for stdout, or ignore the file first: %s",
			target, realRoot, ignoreCommand(realRoot, rel))
	}
	return nil
}

// ignoreCommand is the shell command that makes git ignore the file at rel in the checkout at
// root: one line, the file's exclude pattern, appended to the checkout's .git/info/exclude.
// printf rather than echo, which some shells let expand backslashes in the pattern.
func ignoreCommand(root, rel string) string {
	return core.ShellWords([]string{"printf", `%s\n`, ignorePattern(rel)}) + " >> " +
		core.ShellWords([]string{filepath.Join(root, ".git", "info", "exclude")})
}

// ignorePattern is the exclude pattern that matches exactly the path rel below the checkout's
// root: anchored, with what git's patterns read as wildcards or escapes backslashed, and spaces
// too (git drops a pattern's unescaped trailing spaces).
func ignorePattern(rel string) string {
	var b strings.Builder
	b.WriteByte('/')
	for _, c := range filepath.ToSlash(rel) {
		if strings.ContainsRune(`\*?[ `, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

package core

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"reasonixctl/core/policy"
	"reasonixctl/store/atomicfile"
)

// A Grant is a standing permission for one exact command (argv, run from cwd inside a task's
// worktree) in one repository, given by a person in a permission prompt. Grants live in the
// state directory, never in a repository, so no repository can grant itself anything; they
// cover only commands the policy would ask a person about (policy.Standing is Askable), never
// what it always denies.
type Grant struct {
	ID           string   `json:"id"`
	RepositoryID string   `json:"repository_id"`
	Repository   string   `json:"repository"` // the checkout's root, for people
	Argv         []string `json:"argv"`
	Cwd          string   `json:"cwd"` // relative to the worktree's root, slash-separated; "." for the root
	CreatedAt    string   `json:"created_at"`
	CreatedBy    string   `json:"created_by"`        // who allowed it (supervisor, …)
	TaskID       string   `json:"task_id,omitempty"` // the task whose prompt it was given in
}

// GrantsFile is the grants' file in the state directory.
type GrantsFile struct {
	Version int     `json:"version"`
	Grants  []Grant `json:"grants"`
}

// The grants file: its name in the state directory, its version and its limit.
const (
	GrantsName    = "grants.json"
	GrantsVersion = 1
	// MaxGrants bounds the grants of a state directory.
	MaxGrants = 1000
)

// Describe is the grant's command as a person reads it.
func (g Grant) Describe() string {
	where := ""
	if g.Cwd != "." && g.Cwd != "" {
		where = " (in " + g.Cwd + ")"
	}
	return strings.Join(g.Argv, " ") + where
}

// covers reports whether g allows argv run from cwd in repository repoID.
func (g Grant) covers(repoID string, argv []string, cwd string) bool {
	return g.RepositoryID == repoID && g.Cwd == cwd && slices.Equal(g.Argv, argv)
}

// Grantable reports whether a person may allow the command a permission request asks about
// for its repository from then on: a command with an argv that the policy asks a person about.
// An edit, a command without an argv and anything the policy decides by itself are not. The
// dashboard offers a grant, and the engine accepts one, by this alone.
func (r InteractionRequest) Grantable() bool {
	return r.Tool == "execute" && len(r.Argv) > 0 && r.Code == policy.CodeUnknownExecutable
}

// grantableCommand is the policy's decision, with no contract, on argv run from cwd (as a grant
// records it): a grant may cover the command only when this is Askable, so that what the policy
// always denies stays denied whatever the grants file says.
func grantableCommand(argv []string, cwd string) policy.Decision {
	return policy.Standing(argv, cwd)
}

// GrantCwd is cwd (absolute; empty for the worktree's root) as a grant records it: relative to
// worktree's root, slash-separated, "." for the root. Both are resolved first, since the worker
// names its cwd through whatever links it likes; ok is false when either cannot be resolved or
// cwd is not inside the worktree.
func GrantCwd(worktree, cwd string) (rel string, ok bool) {
	if cwd == "" {
		return ".", true
	}
	root, err1 := filepath.EvalSymlinks(worktree)
	real, err2 := filepath.EvalSymlinks(cwd)
	if err1 != nil || err2 != nil {
		return "", false
	}
	r, err := filepath.Rel(root, real)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(r), true
}

// LoadGrants reads the grants of a state directory (none when it has no grants file). A file
// that cannot be read is an error, never an empty list: nothing stored is lost by a later write.
func LoadGrants(dir string) ([]Grant, error) {
	f, err := readGrants(dir)
	return f.Grants, err
}

func readGrants(dir string) (GrantsFile, error) {
	data, err := os.ReadFile(filepath.Join(dir, GrantsName))
	if errors.Is(err, os.ErrNotExist) {
		return GrantsFile{Version: GrantsVersion}, nil
	}
	if err != nil {
		return GrantsFile{}, Errorf(CodeInternalError, nil, "reading grants: %w", err)
	}
	var f GrantsFile
	if err := json.Unmarshal(data, &f); err != nil || f.Version != GrantsVersion {
		return GrantsFile{}, Errorf(CodeInternalError, &PathRef{Path: filepath.Join(dir, GrantsName)},
			"the grants file %s is not a version-%d grants file (%v); fix or remove it", filepath.Join(dir, GrantsName), GrantsVersion, err)
	}
	return f, nil
}

// WriteGrants replaces the grants file of the state directory dir with f.
func WriteGrants(dir string, f GrantsFile) error {
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, GrantsName), append(data, '\n'), atomicfile.Options{Pattern: ".grants-*.json"}); err != nil {
		return Errorf(CodeInternalError, nil, "writing grants: %w", err)
	}
	return nil
}

// AddGrant stores g (ID and CreatedAt are filled in) and returns it; a grant for the same
// command in the same repository is returned as it is. A command the policy would not ask a
// person about is refused with invalid_request, and so is a grant without a repository.
func AddGrant(dir string, g Grant) (Grant, error) {
	if g.RepositoryID == "" {
		return Grant{}, Errorf(CodeInvalidRequest, nil, "a grant needs a repository")
	}
	if g.Cwd == "" {
		g.Cwd = "."
	}
	if d := grantableCommand(g.Argv, g.Cwd); !d.Askable() {
		what := "the policy allows it already"
		if !d.Allow {
			what = "the policy always denies it (" + d.Code + "): " + d.Reason
		}
		return Grant{}, Errorf(CodeInvalidRequest, &PolicyRefusal{Code: d.Code},
			"%q cannot be granted: %s", strings.Join(g.Argv, " "), what)
	}
	var out Grant
	err := withGrantsLock(dir, func() error {
		f, err := readGrants(dir)
		if err != nil {
			return err
		}
		for _, have := range f.Grants {
			if have.covers(g.RepositoryID, g.Argv, g.Cwd) {
				out = have
				return nil
			}
		}
		if len(f.Grants) >= MaxGrants {
			return Errorf(CodeInvalidRequest, nil, "there are %d grants already, the most a state directory keeps: revoke some (reasonixctl grants list|revoke)", len(f.Grants))
		}
		var b [4]byte
		_, _ = rand.Read(b[:])
		g.ID = "g-" + hex.EncodeToString(b[:])
		g.CreatedAt = FormatTime(time.Now())
		f.Grants = append(f.Grants, g)
		out = g
		return WriteGrants(dir, f)
	})
	return out, err
}

// RevokeGrant removes the grant id and returns it; an unknown id is invalid_request and
// changes nothing.
func RevokeGrant(dir, id string) (Grant, error) {
	var out Grant
	err := withGrantsLock(dir, func() error {
		f, err := readGrants(dir)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(f.Grants, func(g Grant) bool { return g.ID == id })
		if i < 0 {
			return Errorf(CodeInvalidRequest, &UnknownID{ID: id}, "no grant %s (reasonixctl grants list shows them)", id)
		}
		out = f.Grants[i]
		f.Grants = slices.Delete(f.Grants, i, i+1)
		return WriteGrants(dir, f)
	})
	return out, err
}

// MatchGrant returns the grant of dir that covers argv run from the absolute cwd (empty: the
// worktree's root) inside worktree, in the repository repoID, if one does and the policy would
// ask a person about the command. The engine's permission check and policy explain both ask it.
func MatchGrant(dir, repoID, worktree string, argv []string, cwd string) (Grant, bool) {
	rel, ok := GrantCwd(worktree, cwd)
	if !ok || !grantableCommand(argv, rel).Askable() {
		return Grant{}, false
	}
	grants, err := LoadGrants(dir)
	if err != nil {
		return Grant{}, false
	}
	return FindGrant(grants, repoID, argv, rel)
}

// FindGrant returns the grant among grants that covers argv run from cwd (as GrantCwd gives it)
// in the repository repoID, if one does and the policy would ask a person about the command: a
// grant someone wrote into the file for a command the policy always denies covers nothing.
func FindGrant(grants []Grant, repoID string, argv []string, cwd string) (Grant, bool) {
	if !grantableCommand(argv, cwd).Askable() {
		return Grant{}, false
	}
	for _, g := range grants {
		if g.covers(repoID, argv, cwd) {
			return g, true
		}
	}
	return Grant{}, false
}

// GrantedReason is how a decision a grant made reads in the journal.
func GrantedReason(g Grant) string { return fmt.Sprintf("allowed by grant %s", g.ID) }

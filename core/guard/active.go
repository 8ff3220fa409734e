package guard

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"reasonixctl/core/gitx"
	"reasonixctl/store/atomicfile"
)

// ActiveVersion is the schema of an active-task record. The hook refuses any newer version, so
// a newer engine beside an older hook fails closed. Version 1 records also named each task's
// state; they are read as version 2, the state ignored (an owner started before an upgrade
// still writes them).
const ActiveVersion = 2

// ActiveDirName is the directory under the state directory that holds one record per
// repository with active tasks.
const ActiveDirName = "active"

// ActiveTask is one task that owns part of a repository until it ends. It names no state: a
// record is written when a task claims its scope and when that claim changes, not at every
// step, so a state in it would be stale by the next step.
type ActiveTask struct {
	TaskID     string   `json:"task_id"`
	WriteScope []string `json:"write_scope"` // repository-relative globs of the contract
	Worktree   string   `json:"worktree"`
	Branch     string   `json:"branch"`
}

// ActiveRepo is the record of one repository: every task still active in it. The engine keeps
// it current; the hook only reads it, so that it never needs the store another process owns.
type ActiveRepo struct {
	Version      int          `json:"version"`
	RepositoryID string       `json:"repository_id"`
	Root         string       `json:"root"`       // real path of the checkout's top level
	CommonDir    string       `json:"common_dir"` // real path of its common git directory
	Tasks        []ActiveTask `json:"tasks"`
}

var repoIDPattern = regexp.MustCompile(`^[0-9a-f]{24}$`)

// ActiveDir is where the records of stateDir live.
func ActiveDir(stateDir string) string { return filepath.Join(stateDir, ActiveDirName) }

// ActivePath is the record of one repository.
func ActivePath(stateDir, repoID string) string {
	return filepath.Join(ActiveDir(stateDir), repoID+".json")
}

// CorruptError says an active-task record cannot be trusted; the hook denies on it.
type CorruptError struct {
	Path string
	Why  string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("active-task record %s is unusable: %s", e.Path, e.Why)
}

// check validates a record read from path: its version, its identity (the file name, the id and
// the id recomputed from root and common directory must agree) and every task.
func (a *ActiveRepo) check(path string) error {
	bad := func(format string, args ...any) error {
		return &CorruptError{Path: path, Why: fmt.Sprintf(format, args...)}
	}
	switch {
	case a.Version != ActiveVersion && a.Version != 1:
		return bad("schema version %d, this reasonixctl reads %d", a.Version, ActiveVersion)
	case !repoIDPattern.MatchString(a.RepositoryID):
		return bad("repository id %q is malformed", a.RepositoryID)
	case strings.TrimSuffix(filepath.Base(path), ".json") != a.RepositoryID:
		return bad("the file name does not match repository %s", a.RepositoryID)
	case !filepath.IsAbs(a.Root) || !filepath.IsAbs(a.CommonDir):
		return bad("root and common directory must be absolute")
	case gitx.RepoID(a.Root, a.CommonDir) != a.RepositoryID:
		return bad("root and common directory do not give repository id %s", a.RepositoryID)
	case len(a.Tasks) == 0:
		return bad("it lists no task")
	}
	for _, t := range a.Tasks {
		if t.TaskID == "" {
			return bad("a task has no id")
		}
	}
	return nil
}

// ReadActive reads every record in stateDir. A missing directory means no active task. Any
// record that cannot be read or trusted is an error (*CorruptError for bad content): the caller
// cannot tell which repository it covered.
func ReadActive(stateDir string) ([]ActiveRepo, error) {
	dir := ActiveDir(stateDir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []ActiveRepo
	for _, ent := range entries {
		name := ent.Name()
		if strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".json") {
			continue // temporary files of a write in progress
		}
		path := filepath.Join(dir, name)
		b, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			continue // removed since the listing: its last task ended
		}
		if err != nil {
			return nil, err
		}
		var a ActiveRepo
		if err := json.Unmarshal(b, &a); err != nil {
			return nil, &CorruptError{Path: path, Why: "not valid JSON: " + err.Error()}
		}
		if err := a.check(path); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// WriteActive replaces the record of a.RepositoryID atomically (a temporary file renamed over
// it, file and folder synced, as every replaced file is), or removes it when a lists no task.
// The engine rewrites every record when it starts, and a record that still reads as corrupt
// makes the hook deny.
func WriteActive(stateDir string, a ActiveRepo) error {
	path := ActivePath(stateDir, a.RepositoryID)
	if len(a.Tasks) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	a.Version = ActiveVersion
	if err := a.check(path); err != nil {
		return err
	}
	b, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(b, '\n'), atomicfile.Options{Pattern: "." + a.RepositoryID + ".*.tmp", MkdirAll: true})
}

// RemoveStale deletes every record (and leftover temporary file) whose repository is not in
// keep: what a restarted engine does once it has rewritten the records of its active tasks.
func RemoveStale(stateDir string, keep map[string]bool) error {
	dir := ActiveDir(stateDir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var errs []error
	for _, ent := range entries {
		name := ent.Name()
		id := strings.TrimSuffix(name, ".json")
		if !strings.HasPrefix(name, ".") && keep[id] {
			continue
		}
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

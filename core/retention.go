package core

import (
	"time"
)

// TaskArchivedData is the data of task_archived.
type TaskArchivedData struct {
	Worktree   string   `json:"worktree,omitempty"` // the worktree removed; empty when it was already gone
	Branch     string   `json:"branch"`
	Head       string   `json:"head"` // the commit the branch keeps
	Deleted    []string `json:"deleted,omitempty"`
	ArchivedAt string   `json:"archived_at"`
}

// TaskPrunedData is the data of task_pruned.
type TaskPrunedData struct {
	State         State  `json:"state"`
	Branch        string `json:"branch"`
	CommitHash    string `json:"commit_hash,omitempty"`
	ArchivedAt    string `json:"archived_at"`
	PrunedAt      string `json:"pruned_at"`
	EventsDropped uint64 `json:"events_dropped"`
}

// Storage says how much of a task the state directory still holds.
type Storage string

const (
	StorageLive      Storage = "live"      // the record, its journal and (unless removed by hand) its worktree
	StorageArchived  Storage = "archived"  // the record and journal; worktree and derived files removed
	StorageTombstone Storage = "tombstone" // only a minimal record that keeps the id taken
)

// StoredTask is a task as the retention commands see it. TaskView stays the MCP schema; storage
// and retention times travel beside it.
type StoredTask struct {
	View       TaskView
	Storage    Storage
	CreatedAt  time.Time
	ArchivedAt *time.Time
	PrunedAt   *time.Time
}

// ArchiveResult says what Archive did or, in a dry run, would do.
type ArchiveResult struct {
	TaskID     string     `json:"task_id"`
	State      State      `json:"state"`
	Applied    bool       `json:"applied"`
	Worktree   string     `json:"worktree,omitempty"` // removed (or to be removed); empty when already gone
	Branch     string     `json:"branch"`
	Head       string     `json:"head"`              // the commit the branch keeps
	Deleted    []string   `json:"deleted,omitempty"` // derived files removed (or to be removed)
	ArchivedAt *time.Time `json:"archived_at,omitempty"`
}

// PruneResult is one archived task that Prune turned (or, in a dry run, would turn) into a
// tombstone.
type PruneResult struct {
	TaskID     string     `json:"task_id"`
	State      State      `json:"state"`
	Branch     string     `json:"branch"`
	CommitHash string     `json:"commit_hash,omitempty"`
	ArchivedAt time.Time  `json:"archived_at"`
	Applied    bool       `json:"applied"`
	PrunedAt   *time.Time `json:"pruned_at,omitempty"`
}

// Package store persists task records and their append-only event journals in badger, with one
// owning process per state directory.
//
// Layout of a state directory: owner.lock (flock held while a Store is open), owner.json (pid,
// mode and start time of the owner, so a second process can name it in *OwnedError) and
// badger/ (the database). Keys: task/<id> holds the record in an envelope carrying
// RecordSchemaVersion; ev/<id>/<big-endian seq> is the journal, seq 1, 2, 3... per task;
// meta/cursor-key holds the pagination-cursor secret; del/<id> marks a delete in progress.
//
// A commit writes a record change and its events together or not at all. Update returns once
// the commit is on disk; Append and UpdateUnsynced return before, for what is as cheap to lose
// as streamed text, and the next Update's flush makes them durable too: the log is written in
// order, so a power failure loses at most a tail of commits, never one from the middle.
// Subscribers get events from an in-process broker fed after each commit, because badger's own
// subscriptions have no history.
package store

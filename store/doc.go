// Package store persists task records and their append-only event journals in badger, with one
// owning process per state directory.
package store

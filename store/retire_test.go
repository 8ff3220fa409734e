package store

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Retire removes the owner record of this process at once, while the lock stays held until
// Close; it never removes another process's record.
func TestRetireRemovesOnlyOurOwnRecord(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(Options{Dir: dir, Mode: "test", noSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	info := filepath.Join(dir, ownerInfoName)
	if _, err := os.Stat(info); err != nil {
		t.Fatalf("no owner record while open: %v", err)
	}
	if !Retire(dir) {
		t.Fatal("Retire did not remove this process's record")
	}
	if _, err := os.Stat(info); !os.IsNotExist(err) {
		t.Fatalf("owner record still there: %v", err)
	}
	// The lock is still held: a second Store is refused (after the grace for an exiting owner).
	if _, err := Open(Options{Dir: dir, Mode: "test"}); !errors.As(err, new(*OwnedError)) {
		t.Fatalf("second open while retiring: %v", err)
	}
	if Retire(dir) {
		t.Fatal("Retire removed a record that was not there")
	}
	// Another process's record stays.
	other, _ := json.Marshal(OwnerInfo{PID: os.Getpid() + 1, Mode: "tui"})
	if err := os.WriteFile(info, other, 0o600); err != nil {
		t.Fatal(err)
	}
	if Retire(dir) {
		t.Fatal("Retire removed another process's record")
	}
	if _, err := os.Stat(info); err != nil {
		t.Fatalf("another process's record was removed: %v", err)
	}
	os.Remove(info)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

package contract

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A contract file is read whole up to the limit; a larger file, or a directory, is refused
// without reading it all.
func TestReadFileRefusesWhatCannotBeAContract(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "c.json")
	os.WriteFile(small, []byte(`{"schema_version":1}`), 0o600)
	if data, err := ReadFile(small); err != nil || string(data) != `{"schema_version":1}` {
		t.Fatalf("small file: %q %v", data, err)
	}
	big := filepath.Join(dir, "big.log")
	f, _ := os.Create(big)
	f.Truncate(MaxFileBytes + 1)
	f.Close()
	if _, err := ReadFile(big); err == nil || !strings.Contains(err.Error(), "not a contract") {
		t.Fatalf("big file: %v", err)
	}
	if _, err := ReadFile(dir); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("directory: %v", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing.json")); !os.IsNotExist(err) {
		t.Fatalf("missing file: %v", err)
	}
}

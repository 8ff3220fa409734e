package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestWriteFileReplacesWhole(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	p := filepath.Join(dir, "f.json")
	if err := WriteFile(p, []byte("one"), Options{}); err == nil {
		t.Fatal("wrote into a missing directory without MkdirAll")
	}
	mt := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := WriteFile(p, []byte("one"), Options{MkdirAll: true, Perm: 0o640, ModTime: mt}); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("two"), Options{Perm: 0o640, ModTime: mt}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	fi, serr := os.Stat(p)
	if err != nil || serr != nil || string(b) != "two" || fi.Mode().Perm() != 0o640 || !fi.ModTime().Equal(mt) {
		t.Fatalf("%q %v %v %v %v", b, fi.Mode(), fi.ModTime(), err, serr)
	}
	onlyFiles(t, dir, "f.json")
}

func TestWriteFileFailureLeavesTheTargetAndNoTemporary(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "index")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Someone holds the lock: the write fails and the lock stays theirs.
	if err := os.WriteFile(filepath.Join(dir, "index.lock"), []byte("theirs"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(target, []byte("new"), Options{Lock: "index.lock"}); err == nil {
		t.Fatal("wrote through a lock somebody holds")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "index.lock")); string(b) != "theirs" {
		t.Fatalf("the lock was touched: %q", b)
	}
	os.Remove(filepath.Join(dir, "index.lock"))
	if err := WriteFile(target, []byte("new"), Options{Lock: "index.lock"}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Fatalf("through the lock: %q", b)
	}
	// A rename that cannot happen (the target is a non-empty directory) leaves nothing behind.
	sub := filepath.Join(dir, "sub")
	if err := os.MkdirAll(filepath.Join(sub, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(sub, []byte("x"), Options{}); err == nil {
		t.Fatal("replaced a directory")
	}
	onlyFiles(t, dir, "index", "sub")
}

func onlyFiles(t *testing.T, dir string, want ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("files %v, want %v", got, want)
	}
}

// Every file replaced by rename goes through WriteFile: no other code renames over a file.
func TestNoOtherWriteThenRename(t *testing.T) {
	root := filepath.Join("..", "..")
	self, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		if abs, err := filepath.Abs(filepath.Dir(p)); err == nil && abs == self {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(string(b), "os.Rename(") {
			t.Errorf("%s renames a file itself: use atomicfile.WriteFile", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

package statedir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// private is a fresh 0700 directory (t.TempDir's are 0755).
func private(t *testing.T) string {
	t.Helper()
	d := filepath.Join(t.TempDir(), "state")
	if err := os.Mkdir(d, 0o700); err != nil {
		t.Fatal(err)
	}
	return d
}

// refused fails the test unless err is a refusal whose message holds every one of words.
func refused(t *testing.T, err error, words ...string) {
	t.Helper()
	var e *Error
	if !errors.Is(err, ErrUnsafe) || !errors.As(err, &e) {
		t.Fatalf("want a refusal, got %v", err)
	}
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%q does not say %q", err, w)
		}
	}
}

func TestOursAndPrivatePasses(t *testing.T) {
	d := private(t)
	if err := Check(d); err != nil {
		t.Fatal(err)
	}
	if err := Ensure(d); err != nil {
		t.Fatal(err)
	}
	if err := Check(filepath.Join(d, "missing")); err != nil {
		t.Fatalf("a directory still to be created: %v", err)
	}
}

func TestEnsureCreatesPrivate(t *testing.T) {
	d := filepath.Join(private(t), "a", "state")
	if err := Ensure(d); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{d, filepath.Dir(d)} {
		fi, err := os.Stat(p)
		if err != nil || !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 {
			t.Fatalf("%s: %v %v", p, fi.Mode(), err)
		}
	}
}

func TestOpenModeIsRefusedWithTheFix(t *testing.T) {
	for _, mode := range []os.FileMode{0o755, 0o750, 0o701, 0o777} {
		d := private(t)
		os.Chmod(d, mode)
		refused(t, Check(d), "chmod 700 "+d)
		refused(t, Ensure(d), "chmod 700 "+d)
	}
}

func TestForeignOwnerIsRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a directory owned by another uid")
	}
	d := private(t)
	if err := os.Chown(d, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	refused(t, Ensure(d), "owned by uid 65534", "unset CODEX_REASONIX_STATE_DIR")
	// A symlink of ours to it is no way round.
	link := filepath.Join(private(t), "link")
	os.Symlink(d, link)
	refused(t, Ensure(link), "owned by uid 65534")
	// Nor is a symlink someone else owns, even to a directory of ours.
	theirs := filepath.Join(private(t), "theirs")
	os.Symlink(private(t), theirs)
	if err := os.Lchown(theirs, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	refused(t, Ensure(theirs), "symlink owned by uid 65534")
}

func TestSymlinkToOursPasses(t *testing.T) {
	link := filepath.Join(private(t), "link")
	os.Symlink(private(t), link)
	if err := Ensure(link); err != nil {
		t.Fatal(err)
	}
}

func TestNotADirectoryIsRefused(t *testing.T) {
	f := filepath.Join(private(t), "file")
	os.WriteFile(f, nil, 0o600)
	refused(t, Ensure(f), "is not a directory")
	refused(t, Check(f), "is not a directory")
}

// Inside a directory everyone may write, anyone could swap the state directory; the sticky bit
// (/tmp) stops that.
func TestWorldWritableParentIsRefusedUnlessSticky(t *testing.T) {
	parent := private(t)
	d := filepath.Join(parent, "state")
	os.Mkdir(d, 0o700)
	os.Chmod(parent, 0o777)
	refused(t, Check(d), "inside "+parent, "chmod o-w "+parent)
	refused(t, Check(filepath.Join(d, "missing")), "inside "+parent)
	os.Chmod(parent, 0o777|os.ModeSticky)
	if err := Check(d); err != nil {
		t.Fatalf("sticky parent: %v", err)
	}
	os.Chmod(parent, 0o775)
	if err := Check(d); err != nil {
		t.Fatalf("group-writable parent: %v", err)
	}
}

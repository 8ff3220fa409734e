package gitx_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"reasonixctl/core/gitx"
)

// filterRepo makes dir a repository of the worker's whose config runs a filter that leaves
// marker, selected for every file by its .gitattributes, with one commit.
func filterRepo(t *testing.T, dir, marker string) {
	t.Helper()
	sh(t, filepath.Dir(dir), "init", "-q", dir)
	f, _ := os.OpenFile(filepath.Join(dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("[filter \"x\"]\n\tclean = sh -c 'touch " + marker + "; cat'\n\tprocess = sh -c 'touch " + marker + "'\n" +
		"[core]\n\tfsmonitor = sh -c 'touch " + marker + "'\n")
	f.Close()
	write(t, filepath.Join(dir, ".gitattributes"), "* filter=x\n", 0o644)
	write(t, filepath.Join(dir, "data.txt"), "one\n", 0o644)
	sh(t, dir, "-c", "filter.x.clean=cat", "-c", "filter.x.process=", "-c", "core.fsmonitor=false", "add", ".")
	sh(t, dir, "-c", "filter.x.clean=cat", "-c", "filter.x.process=", "-c", "core.fsmonitor=false", "commit", "-q", "-m", "nested")
}

// A nested repository the worker made and put in the worktree's own index as a gitlink is never
// entered: no git of reasonixctl's runs with that repository's config, whatever is stat-dirty.
func TestNestedRepositoryInTheIndexIsNeverEntered(t *testing.T) {
	f := newFixture(t)
	wt := f.task(t, "nested")
	marker := filepath.Join(t.TempDir(), "MARKER")
	filterRepo(t, filepath.Join(wt.Path, "sub"), marker)
	sh(t, wt.Path, "add", "sub") // the worker's own git: a gitlink in the worktree's index
	later := time.Now().Add(2 * time.Second)
	write(t, filepath.Join(wt.Path, "sub", "data.txt"), "two\n", 0o644)
	os.Chtimes(filepath.Join(wt.Path, "sub", "data.txt"), later, later)

	if _, _, err := gitx.Changes(ctx, wt, 50); err != nil {
		t.Fatal(err)
	}
	rev, err := gitx.BuildReview(ctx, wt)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gitx.Unreviewed(ctx, wt, rev.Tree, "", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(marker); err == nil {
		t.Fatal("a program of the nested repository's config ran")
	}
}

// The worktree's .git is held to the link made at its creation: rewritten, replaced by a
// directory or a symlink, or removed, it is refused everywhere git would follow it.
func TestTamperedGitLinkIsRefused(t *testing.T) {
	f := newFixture(t)
	for name, tamper := range map[string]func(link string){
		"rewritten": func(link string) { os.WriteFile(link, []byte("gitdir: /tmp/elsewhere\n"), 0o644) },
		"directory": func(link string) { os.Remove(link); os.Mkdir(link, 0o755) },
		"symlink": func(link string) {
			b, _ := os.ReadFile(link)
			other := filepath.Join(t.TempDir(), "link")
			os.WriteFile(other, b, 0o644)
			os.Remove(link)
			os.Symlink(other, link)
		},
		"removed":  func(link string) { os.Remove(link) },
		"appended": func(link string) { b, _ := os.ReadFile(link); os.WriteFile(link, append(b, '\n'), 0o644) },
		"same text": func(link string) {
			b, _ := os.ReadFile(link)
			os.WriteFile(link, []byte(strings.TrimSpace(string(b))), 0o644)
		},
	} {
		t.Run(name, func(t *testing.T) {
			wt := f.task(t, "tamper-"+strings.ReplaceAll(name, " ", "-"))
			write(t, filepath.Join(wt.Path, "result.txt"), "ok\n", 0o644)
			rev, err := gitx.BuildReview(ctx, wt)
			if err != nil {
				t.Fatal(err)
			}
			tamper(filepath.Join(wt.Path, ".git"))
			if err := gitx.CheckLink(wt); !gitx.IsTampered(err) {
				t.Fatalf("CheckLink: %v", err)
			}
			if _, err := gitx.BuildReview(ctx, wt); !gitx.IsTampered(err) {
				t.Fatalf("BuildReview: %v", err)
			}
			if _, err := gitx.Unreviewed(ctx, wt, rev.Tree, "", nil); !gitx.IsTampered(err) {
				t.Fatalf("Unreviewed: %v", err)
			}
			if _, _, err := gitx.Changes(ctx, wt, 50); !gitx.IsTampered(err) {
				t.Fatalf("Changes: %v", err)
			}
			_, err = gitx.Commit(ctx, gitx.CommitRequest{Worktree: wt, Tree: rev.Tree, Files: rev.Paths(), Message: "m",
				Author: gitx.Identity{Name: "A", Email: "a@example.com"}})
			if !gitx.IsTampered(err) {
				t.Fatalf("Commit: %v", err)
			}
			if got := sh(t, f.src, "rev-parse", wt.Ref()); got != wt.Base {
				t.Fatalf("the branch moved to %s", got)
			}
		})
	}
}

// A worktree recorded before its private git directory was kept finds it from the
// repository's side, and is held to the link git writes for it.
func TestWorktreeWithoutRecordedAdminDirIsFoundFromTheRepository(t *testing.T) {
	f := newFixture(t)
	wt := f.task(t, "old-record")
	if wt.AdminDir == "" || wt.GitLink != "gitdir: "+wt.AdminDir+"\n" {
		t.Fatalf("recorded %q %q", wt.AdminDir, wt.GitLink)
	}
	old := wt
	old.AdminDir, old.GitLink = "", ""
	if err := gitx.CheckLink(old); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(wt.Path, "result.txt"), "ok\n", 0o644)
	if _, err := gitx.BuildReview(ctx, old); err != nil {
		t.Fatal(err)
	}
}

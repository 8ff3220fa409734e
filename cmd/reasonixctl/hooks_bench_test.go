package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"reasonixctl/core/gitx"
	"reasonixctl/core/guard"
)

// BenchmarkHookProcess runs `reasonixctl hook pre-tool-use` as Codex does, one process per call,
// against a state directory with an active task in the checkout: ns/op is process start,
// reading the input and the records, deciding and answering. The target is 20 ms.
func BenchmarkHookProcess(b *testing.B) {
	bin, err := buildBinaries()
	if err != nil {
		b.Fatal(err)
	}
	repo, _ := filepath.EvalSymlinks(b.TempDir())
	state := privateDir(b)
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	common := filepath.Join(repo, ".git")
	if err := guard.WriteActive(state, guard.ActiveRepo{RepositoryID: gitx.RepoID(repo, common), Root: repo, CommonDir: common,
		Tasks: []guard.ActiveTask{{TaskID: "bench", WriteScope: []string{"src/**", "go.mod"}}}}); err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"patch-in-scope", "bash-read"} {
		in := recorded(b, name, repo)
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command(filepath.Join(bin, "reasonixctl"), "hook", "pre-tool-use", "--state-dir", state)
				cmd.Stdin = bytes.NewReader(in)
				if _, err := cmd.Output(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"reasonixctl/core"
	"reasonixctl/core/baseline"
	"reasonixctl/core/contract"
	"reasonixctl/core/policy"
	"reasonixctl/core/safetext"
	"reasonixctl/core/scaffold"
)

// newContractLintCmd is `contract lint [--json] FILE|-`: exit 0 with the hash, 1 with every
// issue (schema, consistency and the policy gate on verification commands), 2 on usage errors.
func newContractLintCmd(stdout, stderr io.Writer) *cobra.Command {
	var asJSON, check bool
	var dir string
	cmd := &cobra.Command{
		Use:   "lint [--json] [--check --dir REPO] FILE|-",
		Short: "validate a TaskContractV1 and print its hash",
		Long: `Validate a TaskContractV1 (the file, or stdin for -) and print its sha256 contract hash.

Every problem is listed: the schema, the consistency of ids and criteria, the policy gate,
which refuses verification commands the worker could never run, and every placeholder of a
draft still to be replaced ("TODO: ..." texts, the placeholder write scope), which delegate
refuses too. Exit 0 when valid, 1 when not.

With --check, each verification command also runs on the HEAD commit of the repository in --dir
(default: the current directory), in the sandbox finalize uses. One that already fails there
with failures its toolchain names (tests, build errors) is listed with them: finalize can
excuse exactly those and stops at any other. One that fails there otherwise proves nothing
about a change, and is listed with its first failing lines (exit 1).`,
		Args: exactArgs(1, "one FILE (or - for stdin)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := contract.ReadFile(args[0])
			if err != nil {
				return err
			}
			code := lintContract(data, asJSON, stdout)
			if code != 0 || !check {
				return done(code)
			}
			c, _ := contract.Parse(data)
			if dir == "" {
				dir = "."
			}
			base, checks, err := checkOnBase(dir, c, stderr)
			if err != nil {
				return err
			}
			if failed := reportBaseChecks(stderr, base, checks, "Fails before the change:", "Fails before the change, with known failures:"); len(failed) > 0 {
				fmt.Fprintf(stderr, "Drop or fix these before delegating: %s.\n", strings.Join(failed, ", "))
				return done(1)
			}
			return done(0)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print {valid, contract_hash, issues} as JSON")
	cmd.Flags().BoolVar(&check, "check", false, "also run each verification command on the repository's HEAD, sandboxed")
	cmd.Flags().StringVar(&dir, "dir", "", "with --check: the repository (default: the current directory)")
	return cmd
}

func lintContract(data []byte, asJSON bool, stdout io.Writer) int {
	issues := []contract.Issue{}
	var hash *string
	c, err := contract.Parse(data)
	if invalid, ok := err.(*contract.InvalidError); ok {
		issues = invalid.Issues
	} else if gate := policy.GateContract(c); len(gate) > 0 {
		issues = gate
	} else if todo := contract.Placeholders(c); len(todo) > 0 {
		issues = todo // an unfinished draft: delegate refuses it
	} else {
		h := c.Hash()
		hash = &h
	}

	if asJSON {
		out, _ := json.Marshal(struct {
			Valid        bool             `json:"valid"`
			ContractHash *string          `json:"contract_hash"`
			Issues       []contract.Issue `json:"issues"`
		}{hash != nil, hash, issues})
		fmt.Fprintln(stdout, string(safetext.EscapeJSON(out)))
	} else if hash != nil {
		fmt.Fprintln(stdout, "sha256 "+*hash)
	} else {
		for _, is := range issues {
			fmt.Fprintf(stdout, "- %s: %s\n", is.Path, is.Message)
		}
	}
	if hash == nil {
		return 1
	}
	return 0
}

// newContractInitCmd is `contract init [--dir D] [--objective TEXT] [--write GLOB]... [-o FILE]`:
// a contract for the repository that lints clean, with the verification its toolchains declare.
func newContractInitCmd(stdout, stderr io.Writer) *cobra.Command {
	var dir, objective, outcome, output string
	var write []string
	var force, check bool
	cmd := &cobra.Command{
		Use:   "init [--dir D] [--objective TEXT] [--write GLOB]... [--check] [-o FILE]",
		Short: "draft a contract for a repository, with the checks its toolchains declare",
		Long: `Draft a TaskContractV1 for the repository in --dir (default: the current directory).

Verification commands come from what the repository declares: go.mod (go vet ./... and
go test ./...), package.json with a test script (npm test), pyproject.toml or setup.cfg
(python3 -m pytest when pytest is configured or required, else python3 -m unittest),
Cargo.toml (cargo test --offline) and a Makefile check or test target. Each is one the policy
allows, and each proves its own acceptance criterion.

What only a person can decide is written as a "TODO:" placeholder (and listed on stderr):
the objective unless --objective is given, the user outcome, and the write scope unless
--write is given. The placeholder write scope matches nothing, so the worker can write nothing
until it is replaced. 'reasonixctl contract lint' fails, and delegate refuses the contract, until
every placeholder is replaced.

The draft is written under the state directory, in a folder per repository (its path is printed
on stdout), so the checkout stays clean: a task starts only from a clean checkout. -o - writes
it to stdout; -o FILE inside the checkout is refused unless git ignores FILE.

--check runs each command found on the checkout's HEAD commit first, in the sandbox finalize
uses. One that passes there is kept. One that fails there with failures its toolchain names
(tests, build errors) is kept, with those failures listed: finalize can excuse exactly those
and stops at any other. One that fails there otherwise proves nothing about a change and is
dropped, listed with its first failing lines. The first run of a Go or Rust project builds its
toolchain's cache and takes a minute or more.`,
		Example: `  reasonixctl contract init --objective "Fix the date parser" --write 'parser/**'
  reasonixctl contract init --dir ~/src/app -o - > /tmp/contract.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if dir == "" {
				dir = "."
			}
			abs, err := filepath.Abs(dir)
			if err != nil {
				return err
			}
			opts := scaffold.Options{Dir: abs, Objective: objective, UserOutcome: outcome, WriteScope: write}
			d, err := scaffold.New(opts)
			if err == nil && check {
				c, perr := contract.Parse(d.JSON)
				if perr != nil {
					return perr
				}
				base, checks, cerr := checkOnBase(abs, c, stderr)
				if cerr != nil {
					return cerr
				}
				failed := reportBaseChecks(stderr, base, checks, "Dropped", "Kept")
				if len(failed) > 0 {
					opts.Keep = func(ch scaffold.Check) bool { return !slices.Contains(failed, ch.ID) }
					d, err = scaffold.New(opts)
				}
			}
			var invalid *contract.InvalidError
			if errors.As(err, &invalid) {
				for _, is := range invalid.Issues {
					fmt.Fprintf(stderr, "reasonixctl contract init: %s: %s\n", is.Path, is.Message)
				}
				return errors.New("the --objective or --write given is not valid in a contract")
			}
			if err != nil {
				return err
			}
			switch output {
			case "-":
				stdout.Write(d.JSON)
			case "":
				state, err := stateDir()
				if err != nil {
					return err
				}
				path, err := baseline.WriteDraft(state, d, time.Now())
				if err != nil {
					fmt.Fprintln(stderr, "reasonixctl contract init:", err)
					return exitCode(1)
				}
				fmt.Fprintln(stdout, path)
				fmt.Fprintf(stderr, "Wrote %s (drafts for this repository live in %s, outside the checkout).\n", path, filepath.Dir(path))
			default:
				if err := baseline.CheckDraftOutput(context.Background(), d.Root, output); err != nil {
					fmt.Fprintln(stderr, "reasonixctl contract init:", core.AsError(err).Message)
					return exitCode(1)
				}
				if code := writeContractFile(output, d.JSON, force, stderr); code != 0 {
					return exitCode(code)
				}
				fmt.Fprintf(stderr, "Wrote %s.\n", output)
			}
			reportDraft(stderr, d)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dir, "dir", "", "the repository (default: the current directory)")
	f.StringVar(&objective, "objective", "", "what the worker should change, in one sentence")
	f.StringVar(&outcome, "outcome", "", "what a person can see or do once the change is made")
	f.StringArrayVar(&write, "write", nil, "a path or glob the worker may write (repeat for more)")
	f.StringVarP(&output, "output", "o", "", "write the contract to FILE (- for stdout) instead of the state directory's drafts; inside the checkout only when git ignores FILE")
	f.BoolVar(&force, "force", false, "with -o: replace an existing file")
	f.BoolVar(&check, "check", false, "run each command found on the checkout's HEAD, sandboxed, and drop those whose failures there cannot be named")
	cmd.MarkFlagDirname("dir")
	return cmd
}

// writeContractFile writes a contract to path, refusing to replace a file unless force.
func writeContractFile(path string, data []byte, force bool, stderr io.Writer) int {
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if errors.Is(err, os.ErrExist) {
		fmt.Fprintf(stderr, "reasonixctl contract init: %s exists; use --force to replace it\n", path)
		return 1
	}
	if err != nil {
		fmt.Fprintln(stderr, "reasonixctl contract init:", err)
		return 1
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintln(stderr, "reasonixctl contract init:", err)
		return 1
	}
	return 0
}

// reportDraft tells the person, on stderr, what the draft verifies and what is left to fill in.
func reportDraft(w io.Writer, d scaffold.Draft) {
	fmt.Fprintf(w, "Repository: %s\n", d.Root)
	if len(d.Checks) == 0 {
		fmt.Fprintln(w, "No verification command found (no go.mod, package.json test script, pyproject.toml, setup.cfg, Cargo.toml or Makefile check/test target): add one, or rely on review.")
	}
	for _, c := range d.Checks {
		fmt.Fprintf(w, "Verifies with %s (from %s).\n", strings.Join(c.Argv, " "), c.Source)
	}
	for _, s := range d.Skipped {
		fmt.Fprintf(w, "Left out, the policy refuses it: %s\n", s)
	}
	if len(d.Placeholders) > 0 {
		fmt.Fprintf(w, "Fill in before delegating (marked TODO): %s.\n", strings.Join(d.Placeholders, ", "))
	}
}

package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"reasonixctl/core"
	"reasonixctl/core/gitx"
	"reasonixctl/core/safetext"
)

// newGrantsCmd is `grants list|revoke`: the standing grants of the state directory. They are a
// file of their own there, so these work whether or not another process owns the directory;
// they read and change it with the same core functions the owner serves a dashboard with, under
// the same lock.
func newGrantsCmd(stdout, stderr io.Writer) *cobra.Command {
	var asJSON bool
	list := &cobra.Command{
		Use:   "list [--json]",
		Short: "list the commands allowed for a repository in a permission prompt",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := stateDir()
			if err != nil {
				return done(failed(stderr, err))
			}
			grants, err := core.LoadGrants(dir)
			if err != nil {
				return done(failed(stderr, err))
			}
			if asJSON {
				if grants == nil {
					grants = []core.Grant{}
				}
				return done(printJSON(stdout, stderr, grants))
			}
			if len(grants) == 0 {
				fmt.Fprintln(stdout, "No grants. In a dashboard's permission prompt, R allows a command for its repository.")
				return nil
			}
			for _, g := range grants {
				fmt.Fprintf(stdout, "%s\t%s\t%s\t%s\t%s\n", safetext.Line(g.ID), safetext.Line(g.Repository), safetext.Line(g.Describe()), safetext.Line(g.CreatedAt), safetext.Line(g.TaskID))
			}
			return nil
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	revoke := &cobra.Command{
		Use:   "revoke ID",
		Short: "revoke a grant: the command is asked about again",
		Args:  exactArgs(1, "a grant id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := stateDir()
			if err != nil {
				return done(failed(stderr, err))
			}
			g, err := core.RevokeGrant(dir, args[0])
			if err != nil {
				return done(failed(stderr, err))
			}
			fmt.Fprintf(stdout, "revoked %s: %s in %s\n", safetext.Line(g.ID), safetext.Line(g.Describe()), safetext.Line(g.Repository))
			return nil
		},
	}
	return group("grants", "list and revoke the commands allowed for a repository", list, revoke)
}

// grantFor is the standing grant that covers argv run from cwd inside worktree for the
// checkout repo (empty: none is looked up).
func grantFor(repo, worktree, cwd string, argv []string) (core.Grant, bool, error) {
	if repo == "" {
		return core.Grant{}, false, nil
	}
	abs, err := filepath.Abs(repo)
	if err != nil {
		return core.Grant{}, false, err
	}
	src, err := gitx.OpenSource(context.Background(), abs, "HEAD")
	if err != nil {
		return core.Grant{}, false, err
	}
	dir, err := stateDir()
	if err != nil {
		return core.Grant{}, false, err
	}
	g, ok := core.MatchGrant(dir, src.ID, worktree, argv, cwd)
	return g, ok, nil
}

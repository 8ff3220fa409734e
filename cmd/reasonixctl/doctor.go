package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"reasonixctl/core/doctor"
	"reasonixctl/core/remote"
)

// newDoctorCmd is `reasonixctl doctor [--json]`: exit 1 when any check fails.
func newDoctorCmd(stdout, stderr io.Writer) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor [--json]",
		Short: "check what a first run needs: git, the worker and its provider, the sandbox, toolchains, Codex",
		Long: `Check what a first run needs, changing nothing and calling no provider: the platform and git;
that the worker answers ACP initialize as Reasonix does; its configuration, default model and
API key variable, and that CODEX_REASONIX_ENV_ALLOWLIST passes the key to it; what else the
worker gets from the environment; bubblewrap; the state directory; the toolchains the current
repository's checks need (as 'contract init' finds them); and Codex's config.toml entry for
reasonixctl (tool_timeout_sec, required, default_tools_approval_mode, env and env_vars).
Each problem comes with its fix. Exit 1 when any check fails.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return done(runDoctor(asJSON, stdout, stderr))
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print {ok, checks} as JSON")
	return cmd
}

// askOwner is the doctor's owner check: attach to the owner's socket as a command would.
func askOwner(ctx context.Context, dir string) (doctor.OwnerAnswer, error) {
	c, err := remote.Dial(ctx, dir, remote.RoleCLI)
	if err != nil {
		return doctor.OwnerAnswer{}, err
	}
	defer c.Close()
	o := c.Owner()
	return doctor.OwnerAnswer{PID: o.PID, Mode: o.Mode, StartedAt: o.StartedAt, Protocol: o.Protocol}, nil
}

func runDoctor(asJSON bool, stdout, stderr io.Writer) int {
	// Unchecked: the doctor reports what is wrong with the directory (doctor.Run checks it as
	// every mode does) and reads nothing in one it refuses.
	dir, err := stateDirPath()
	if err != nil {
		fmt.Fprintln(stderr, "reasonixctl:", err)
		return 1
	}
	s, err := readSettings()
	if err != nil {
		fmt.Fprintln(stderr, "reasonixctl:", err)
		return 1
	}
	cwd, _ := os.Getwd()
	checks := doctor.Run(context.Background(), doctor.Options{WorkerBin: s.bin, StateDir: dir, EnvAllow: s.envAllow, RepoDir: cwd,
		AskOwner: askOwner})
	checks = append(checks, guardCheck())
	ok := true
	for _, c := range checks {
		ok = ok && c.Status != doctor.CheckFail
	}
	if asJSON {
		printJSON(stdout, stderr, map[string]any{"ok": ok, "checks": checks})
	} else {
		for _, c := range checks {
			fmt.Fprintf(stdout, "%-4s  %-18s %s\n", c.Status, c.Name, c.Detail)
		}
	}
	if !ok {
		return 1
	}
	return 0
}

package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"reasonixctl/core/safetext"
	"reasonixctl/core/statedir"
)

// exitCode is what a command returns once it has said what went wrong itself: the process exits
// with it and nothing more is printed.
type exitCode int

func (c exitCode) Error() string { return fmt.Sprintf("exit status %d", int(c)) }

// done turns a command's exit code into what a cobra RunE returns.
func done(code int) error {
	if code == 0 {
		return nil
	}
	return exitCode(code)
}

// execute runs a command line through the command tree. Any error other than an exitCode is a
// command line that cannot be run (unknown command or flag, wrong arguments): it is reported
// with the command's usage and exit code 2.
func execute(args []string, stdout, stderr io.Writer) int {
	root := newRootCmd(stdout, stderr)
	stderr = safetext.NewWriter(stderr) // an error may quote a stored or worker-provided value
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err == nil {
		return 0
	}
	var code exitCode
	if errors.As(err, &code) {
		return int(code)
	}
	if errors.Is(err, statedir.ErrUnsafe) {
		// Not a command line to correct: the message names the fix.
		fmt.Fprintln(stderr, "reasonixctl:", err)
		return 1
	}
	fmt.Fprintf(stderr, "%s: %v\n", cmd.CommandPath(), err)
	printUsage(stderr, cmd)
	return 2
}

// printUsage prints the usage lines of cmd, or of every command under it when it groups them.
func printUsage(w io.Writer, cmd *cobra.Command) {
	var lines []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if !c.HasAvailableSubCommands() || !c.HasParent() {
			lines = append(lines, c.UseLine())
		}
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() && sub.Name() != "completion" {
				walk(sub)
			}
		}
	}
	walk(cmd)
	fmt.Fprintf(w, "usage:\n  %s\nRun '%s --help' for more.\n", strings.Join(lines, "\n  "), cmd.CommandPath())
}

// group is a command that only holds subcommands. Run without one, or with an unknown one, it
// is a usage error (cobra alone would print help and exit 0).
func group(use, short string, subs ...*cobra.Command) *cobra.Command {
	c := &cobra.Command{
		Use: use, Short: short, Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var names []string
			for _, s := range cmd.Commands() {
				names = append(names, s.Name())
			}
			if len(args) == 0 {
				return fmt.Errorf("a subcommand is required: %s", strings.Join(names, ", "))
			}
			return fmt.Errorf("unknown subcommand %q (use %s)", args[0], strings.Join(names, ", "))
		},
	}
	c.AddCommand(subs...)
	return c
}

// exactArgs is cobra.ExactArgs with a message naming what is expected.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return fmt.Errorf("takes %s, got %d argument(s)", what, len(args))
		}
		return nil
	}
}

// newRootCmd builds the command tree. Commands write to stdout and stderr as given (the tests
// pass buffers) and return their exit codes through exitCode.
func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	var mcpMode, logStderr bool
	// A person reads what these commands print, and much of it did not come from reasonixctl: a
	// grant's argv, a task's branch and summary, a contract's words, the worker's version line,
	// an error quoting any of them. It is shown through safetext's writer, never obeyed. MCP's
	// stdout and the hook's answer to Codex are protocol, escaped as JSON instead (printJSON).
	out, errOut := safetext.NewWriter(stdout), safetext.NewWriter(stderr)
	root := &cobra.Command{
		Use:   "reasonixctl [--mcp [--log-stderr]]",
		Short: "supervise a Reasonix worker in an isolated git worktree",
		Long: `reasonixctl supervises a Reasonix coding worker in an isolated git worktree.

Without a command it opens the dashboard, where tasks are supervised at the keyboard.
With --mcp it serves Codex over MCP on stdin/stdout.

Configuration comes from the environment (REASONIX_BIN, CODEX_REASONIX_*); see the README.`,
		Version:       version,
		Args:          cobra.NoArgs,
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if mcpMode {
				var rest []string
				if logStderr {
					rest = []string{"--log-stderr"}
				}
				return done(runMCP(rest, stdout, errOut))
			}
			if logStderr {
				return errors.New("--log-stderr goes with --mcp")
			}
			return done(runDashboard(errOut))
		},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetVersionTemplate("reasonixctl {{.Version}}\n")
	// Every Use line already shows its flags.
	defer func() {
		var walk func(c *cobra.Command)
		walk = func(c *cobra.Command) {
			c.DisableFlagsInUseLine = true
			for _, sub := range c.Commands() {
				walk(sub)
			}
		}
		walk(root)
	}()
	root.Flags().BoolVar(&mcpMode, "mcp", false, "serve Codex over MCP on stdin/stdout instead of opening the dashboard")
	root.Flags().BoolVar(&logStderr, "log-stderr", false, "with --mcp: also write the log to stderr")
	root.AddCommand(
		&cobra.Command{
			Use: "demo", Short: "the whole loop on a throw-away repository, no worker needed",
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, args []string) error { return done(runDemo(out, errOut)) },
		},
		newServeCmd(errOut),
		newDoctorCmd(out, errOut),
		newHooksCmd(out, errOut),
		newHookCmd(stdout, errOut),
		newStatsCmd(out, errOut),
		group("contract", "write and check task contracts (TaskContractV1)",
			newContractLintCmd(out, errOut), newContractInitCmd(out, errOut)),
		group("policy", "ask the command policy about a command", newPolicyExplainCmd(out, errOut)),
		newGrantsCmd(out, errOut),
		group("task", "list tasks; amend the checks of one in review; rebase one onto HEAD; apply a completed one to its checkout; archive finished ones; prune old archives",
			newTaskListCmd(out, errOut), newTaskAmendCmd(out, errOut), newTaskApplyCmd(out, errOut), newTaskRebaseCmd(out, errOut), newTaskArchiveCmd(out, errOut), newTaskPruneCmd(out, errOut)),
		&cobra.Command{
			Use: "version", Short: "print the version", Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, args []string) error {
				fmt.Fprintf(out, "reasonixctl %s\n", version)
				return nil
			},
		},
	)
	return root
}

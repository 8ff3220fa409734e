package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"reasonixctl/core"
	"reasonixctl/core/contract"
	"reasonixctl/core/permission"
	"reasonixctl/core/policy"
	"reasonixctl/core/safetext"
)

// Supervised answers: what the dashboard does with a command.
const (
	supervisedAllow = "allow"
	supervisedDeny  = "deny"
	supervisedAsk   = "ask" // the person at the keyboard decides
)

// newPolicyExplainCmd is `policy explain [--contract F] [--worktree D] [--cwd D] [--json] -- ARGV...`:
// the decision the engine would make for a simple command with static argv, in both permission
// modes. Exit 0 whenever a decision was made, 2 on usage errors.
func newPolicyExplainCmd(stdout, stderr io.Writer) *cobra.Command {
	var contractFile, worktree, cwd, repo, shell string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "explain [--contract FILE] [--worktree DIR] [--cwd DIR] [--repo DIR] [--json] (-- ARGV... | --shell STRING)",
		Short: "the policy's decision for a command, under --mcp and under the dashboard",
		Long: `Show what the policy decides when the worker asks to run ARGV from --cwd inside --worktree.

The automatic answer (--mcp, for Codex) is allow or deny. A command the policy does not know
(code unknown_executable) is denied there, and the worker gets a recovery steer, unless someone
can be asked: a dashboard attached to the MCP server, or Codex's user through elicitation
(CODEX_REASONIX_PERMISSIONS=ask). The dashboard asks the person at the keyboard. Hard denials
are denied in both modes.

Flags go before ARGV: everything from the first argument that is not a flag (or after --)
is the command. With --json, "decision" is the automatic answer and "supervised_decision" the
dashboard's (allow, deny or ask).

--shell STRING explains a command as a worker other than Reasonix sends it (Claude, Qwen and
opencode send a shell string; Codex a bash -lc script): read with a shell parser, one that is
plain argv is decided as that argv; any other (a pipe, &&, a redirection, a substitution, a
glob) is never allowed by policy: denied when a command inside it is one the policy always
denies, else asked (code not_plain_argv), with the reason it could not be read. With --json,
"argv" is the argv it was read as, if any.`,
		Example: `  reasonixctl policy explain -- go test ./...
  reasonixctl policy explain --contract contract.json --json -- make check
  reasonixctl policy explain --shell 'go test ./... 2>&1 | tail -5'`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case shell != "" && len(args) > 0:
				return errors.New("give either --shell or ARGV, not both")
			case shell == "" && len(args) == 0:
				return errors.New("ARGV is required after -- (or a command string with --shell)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, argv []string) error {
			var c *contract.Contract
			if contractFile != "" {
				data, err := contract.ReadFile(contractFile)
				if err != nil {
					return err
				}
				if c, err = contract.Parse(data); err != nil {
					return err
				}
			}
			wt, err := filepath.Abs(worktree)
			if err != nil {
				return err
			}
			dir := cwd
			if dir == "" {
				dir = "."
			}
			if dir, err = filepath.Abs(dir); err != nil {
				return err
			}
			var d policy.Decision
			in := permission.Input{Kind: permission.KindExecute, ToolCallID: "gate-1", MetaTool: "bash"}
			if shell != "" {
				fe := policy.ClassifyForeignExec(policy.ForeignExecRequest{ToolCallID: "call_1", Command: shell, HasCommand: true, Cwd: dir, Worktree: wt}, c)
				d, argv = fe.Decision, fe.Argv
				in.ToolCallID, in.MetaTool = "call_1", ""
				if argv == nil {
					in.Command = shell
				}
			} else {
				d = policy.ClassifyExec(policy.ExecRequest{
					ToolCallID: "gate-1",
					Meta:       &policy.ExecMeta{CommandSchemaVersion: 1, Tool: "bash", Argv: argv, Cwd: dir, ApprovalID: "1"},
					Worktree:   wt,
				}, c)
			}
			var g core.Grant
			var granted bool
			if argv != nil {
				if g, granted, err = grantFor(repo, wt, dir, argv); err != nil {
					return err
				}
			}
			// The engine's own decision on these facts: no collision (that is the source
			// checkout's state when the command runs), and under --mcp nobody to ask.
			in.Argv, in.Cwd, in.Known, in.Policy, in.Mode = argv, dir, permission.AllFacts, d, core.PermissionAutomatic
			if granted {
				in.Grant = &g
			}
			automatic := permission.Decide(in)
			in.Mode = core.PermissionSupervised
			supervised := permission.Decide(in)
			if automatic.By == core.ByGrant {
				printGranted(stdout, d, g, asJSON)
				return nil
			}
			if shell != "" && !asJSON {
				if argv != nil {
					fmt.Fprintf(stdout, "read as argv: %s\n", safetext.Line(core.ShellWords(argv)))
				} else {
					fmt.Fprintln(stdout, "read as: not plain argv")
				}
			}
			printExplanation(stdout, automatic, supervised, argv, shell != "", asJSON)
			return nil
		},
	}
	// ARGV is a command line of its own: its flags are not ours.
	cmd.Flags().SetInterspersed(false)
	cmd.Flags().StringVar(&contractFile, "contract", "", "TaskContractV1 file whose commands count (default: none)")
	cmd.Flags().StringVar(&worktree, "worktree", ".", "the worktree directory")
	cmd.Flags().StringVar(&cwd, "cwd", "", "directory the command runs in (default: the current directory)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the decision as JSON")
	cmd.Flags().StringVar(&repo, "repo", "", "the repository's checkout, whose standing grants count (default: none)")
	cmd.Flags().StringVar(&shell, "shell", "", "a command as a worker other than Reasonix sends it, a shell string, instead of ARGV")
	return cmd
}

// printExplanation says what the engine decides on a command under --mcp (automatic) and under
// the dashboard (supervised).
// With shell, the command was a shell string, read as argv (nil when it is not plain argv).
func printExplanation(w io.Writer, automatic, supervised permission.Verdict, argv []string, shell, asJSON bool) {
	answer := map[string]string{core.DecisionAllow: supervisedAllow, core.DecisionInteraction: supervisedAsk, core.DecisionDeny: supervisedDeny}
	v := supervised
	if asJSON {
		var read []string
		if shell {
			read = argv
		}
		out, _ := json.Marshal(struct {
			Decision           string   `json:"decision"`
			SupervisedDecision string   `json:"supervised_decision"`
			Code               string   `json:"code"`
			Reason             string   `json:"reason"`
			Hint               string   `json:"hint"`
			TimeoutSeconds     int      `json:"timeout_seconds"`
			Argv               []string `json:"argv,omitempty"`
		}{automatic.Decision, answer[supervised.Decision], v.Code, v.Reason, v.Hint, v.TimeoutSeconds, read})
		fmt.Fprintln(w, string(safetext.EscapeJSON(out)))
		return
	}
	switch v.Decision {
	case core.DecisionAllow:
		fmt.Fprintf(w, "allow (watchdog %ds): %s\n", v.TimeoutSeconds, safetext.Line(v.Reason))
	case core.DecisionInteraction:
		fmt.Fprintf(w, "ask %s: %s\n", v.Code, safetext.Line(v.Reason))
		fmt.Fprintln(w, "  --mcp (automatic): denied; the worker is steered to recover with the hint below, and")
		fmt.Fprintf(w, "      identical request number %d pauses the task. While a dashboard is attached (or, with\n", core.DenialLoopLimit)
		fmt.Fprintln(w, "      CODEX_REASONIX_PERMISSIONS=ask, through Codex's elicitation) a person is asked first;")
		fmt.Fprintf(w, "      with no answer within CODEX_REASONIX_ASK_TIMEOUT (%s) it is denied as above.\n", core.DefaultAskTimeout)
		fmt.Fprintln(w, "  dashboard (supervised): the person at the keyboard is asked and may allow it once or reject it.")
		if v.Code == policy.CodeNotPlainArgv {
			fmt.Fprintln(w, "  The policy cannot read it as one command, so neither the contract nor a grant can allow it;")
			fmt.Fprintln(w, "  sent as one simple command, it is decided like any argv.")
		} else {
			fmt.Fprintln(w, "  Listing it in the contract's allowed_commands or verification allows it in both modes.")
		}
		fmt.Fprintf(w, "hint: %s\n", safetext.Line(v.Hint))
	default:
		fmt.Fprintf(w, "deny %s: %s\n", v.Code, safetext.Line(v.Reason))
		fmt.Fprintln(w, "  denied under --mcp and under the dashboard alike; no contract or person can allow it.")
		fmt.Fprintf(w, "hint: %s\n", safetext.Line(v.Hint))
	}
}

// printGranted explains a command the policy would ask about that a standing grant allows.
func printGranted(w io.Writer, d policy.Decision, g core.Grant, asJSON bool) {
	if asJSON {
		out, _ := json.Marshal(struct {
			Decision           string `json:"decision"`
			SupervisedDecision string `json:"supervised_decision"`
			Code               string `json:"code"`
			Reason             string `json:"reason"`
			Grant              string `json:"grant"`
		}{"allow", supervisedAllow, d.Code, core.GrantedReason(g), g.ID})
		fmt.Fprintln(w, string(safetext.EscapeJSON(out)))
		return
	}
	fmt.Fprintf(w, "allow: %s (%s, granted %s)\n", safetext.Line(core.GrantedReason(g)), safetext.Line(g.Describe()), safetext.Line(g.CreatedAt))
	fmt.Fprintf(w, "  without it: ask %s: %s\n", d.Code, safetext.Line(d.Reason))
	fmt.Fprintf(w, "  reasonixctl grants revoke %s asks about it again.\n", safetext.Line(g.ID))
}

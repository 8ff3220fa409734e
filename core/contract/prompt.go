package contract

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Lanes of a task: fast makes the edits and stops; deep plans, implements and checks its work.
const (
	LaneFast = "fast"
	LaneDeep = "deep"
)

// DeniedRepeatLimit is the number of identical policy denials after which the worker must stop
// retrying; the supervisor pauses the task on the next one.
const DeniedRepeatLimit = 2

// responsibilities open every prompt: who owns what, whatever the lane.
const responsibilities = `You are the worker of a supervised coding task. A supervisor reviews your changes, runs the verification and creates the only commit.
Work only inside this isolated git worktree and write only the paths the contract's write scope allows; the forbidden scope always wins.
Never commit, stage, push, merge, rebase, switch branches, read credentials, use the network or widen the scope.`

const fastIntro = `Edit task: make exactly the file edits this contract asks for, then stop and report what you changed.
Do not write plans or todos, start Goal or AutoResearch runs, use skills or subagents, or run acceptance or verification checks: the supervisor runs them.
Pause and explain if any pause condition below applies.`

const deepIntro = `Goal: implement this contract. Before the first edit, write a short plan or todo list that tracks every acceptance criterion.
You may run the verification and allowed commands below, exactly as listed (same argv and cwd); nothing else will be permitted except simple read-only commands.
Pause and explain if any pause condition below applies. When the work and your checks are done, stop with a concise delivery summary.`

const footerTitle = "## Bridge supervision boundary"

// Prompt renders the worker prompt for a lane (LaneFast or LaneDeep; anything else is deep):
// the fixed responsibility lines, the lane's body listing the contract, and the supervision
// footer. The deadline is stated generally; use PromptWithDeadline to name it in seconds.
func Prompt(c *Contract, lane string) string { return PromptWithDeadline(c, lane, 0) }

// PromptWithDeadline is Prompt with the execution timeout (seconds, > 0) written in the footer.
func PromptWithDeadline(c *Contract, lane string, timeoutSeconds int) string {
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	list := func(title string, items []string) {
		line("")
		line("%s:", title)
		if len(items) == 0 {
			line("- (none)")
		}
		for _, it := range items {
			line("- %s", it)
		}
	}
	line("%s", responsibilities)
	line("")
	if lane == LaneFast {
		line("%s", fastIntro)
	} else {
		line("%s", deepIntro)
	}
	line("")
	line("Contract sha256: %s", c.Hash())
	line("Objective: %s", c.Objective)
	line("User outcome: %s", c.UserOutcome)
	ctx := make([]string, len(c.VerifiedContext))
	for i, e := range c.VerifiedContext {
		ctx[i] = e.Path + ": " + e.Reason
	}
	list("Verified context", ctx)
	list("Write scope", c.WriteScope)
	list("Forbidden scope (always wins)", c.ForbiddenScope)
	list("Invariants", c.Invariants)
	list("Non-goals", c.NonGoals)
	if lane != LaneFast {
		criteria := make([]string, len(c.AcceptanceCriteria))
		for i, a := range c.AcceptanceCriteria {
			criteria[i] = fmt.Sprintf("[%s] (%s) %s", a.ID, a.Evidence, a.Requirement)
		}
		list("Acceptance criteria", criteria)
		verification := make([]string, len(c.Verification))
		for i, v := range c.Verification {
			verification[i] = commandLine(v.Command) + " proves=" + strings.Join(v.Proves, ",")
		}
		list("Verification commands (exact argv)", verification)
		allowed := make([]string, len(c.AllowedCommands))
		for i, a := range c.AllowedCommands {
			allowed[i] = commandLine(a)
		}
		list("Other allowed commands (exact argv; never acceptance evidence)", allowed)
	}
	list("Pause conditions", c.PauseConditions)
	line("")
	line("%s", footerTitle)
	if timeoutSeconds > 0 {
		line("Stop and report your current state before %d seconds have passed.", timeoutSeconds)
	} else {
		line("Stop and report your current state before the task's execution deadline.")
	}
	line("If the immutable policy denies the same request %d times, do not retry it: stop and report the blocker.", DeniedRepeatLimit)
	return b.String()
}

func commandLine(cmd Command) string {
	var argv strings.Builder
	enc := json.NewEncoder(&argv)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(cmd.Argv) // a []string always encodes
	return fmt.Sprintf("[%s] cwd=%s timeout=%ds argv=%s", cmd.ID, cmd.Cwd, cmd.TimeoutSeconds, strings.TrimSuffix(argv.String(), "\n"))
}

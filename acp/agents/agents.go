// Package agents holds the worker profiles: for each ACP coding agent the supervisor can run
// (Reasonix, the default, and Claude Code, Codex, Gemini CLI, Qwen Code, opencode), how it
// starts, which variables of the user's environment it needs, how its supervision is switched on
// (the session mode, the `_meta` of session/new, the configuration written into its private
// home) and how its permission options map to allow once, allow always and reject.
//
// A profile is data. The acp package reads it to launch and drive a worker, the engine to
// prepare the worker's private home and its sandbox. The package imports nothing of
// reasonixctl; it reads the user's own agent configuration (to copy the model endpoint into the
// private home) and nothing else.
package agents

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
)

// Names are the workers a task may choose, the default first.
var Names = []string{Reasonix, Claude, Codex, Gemini, Qwen, Opencode}

// Worker names.
const (
	Reasonix = "reasonix"
	Claude   = "claude"
	Codex    = "codex"
	Gemini   = "gemini"
	Qwen     = "qwen"
	Opencode = "opencode"
)

// Decision is what the supervisor answers a permission request with, whatever the agent calls
// its options.
type Decision string

// The three decisions, named as ACP's option kinds.
const (
	AllowOnce   Decision = "allow_once"
	AllowAlways Decision = "allow_always"
	RejectOnce  Decision = "reject_once"
)

// Profile is one agent's worker profile.
type Profile struct {
	// Name is one of Names.
	Name string
	// Command is the command line that starts the agent speaking ACP on its stdio, the program
	// first (looked up on PATH). For Reasonix it is `reasonix acp`, to which the launcher adds
	// the confinement flags the binary advertises.
	Command []string
	// Overridden says that Command came from REASONIXCTL_WORKER_<NAME>.
	Overridden bool
	// Env are the names (globs) of the user's variables the agent needs besides the fixed list
	// and CODEX_REASONIX_ENV_ALLOWLIST: its endpoint, key and model.
	Env []string
	// SetEnv are variables set for the agent whatever the user's environment says (no update
	// checks or telemetry; no project configuration that could switch the asking off).
	SetEnv []string
	// Extensions says the agent speaks Reasonix's `_reasonix.io` status and steer extensions
	// and must offer them; for every other agent they are optional.
	Extensions bool
	// Mode is the session mode that makes the agent ask before it writes or runs anything,
	// set at session start where the agent offers it ("" keeps the agent's own).
	Mode string
	// NewSessionMeta is sent as `_meta` of session/new.
	NewSessionMeta map[string]any
	// OptionIDs are the option ids the agent uses for each decision, for the options whose kind
	// is missing or unknown; the kind is looked at first.
	OptionIDs map[Decision][]string
	// Steer says how a steer reaches a running turn of an agent without Reasonix's steer
	// extension: SteerCancelPrompt or SteerQueue.
	Steer string
	// Layout says what the agent's private home holds (see Home).
	Layout HomeKind
	// Install is how the agent is installed (the npm package at the version measured).
	Install string
	// UsesFS says the agent reads and writes files through the client's fs/* when offered
	// (measured: Gemini CLI), so offering them puts its writes through the supervisor.
	UsesFS bool
}

// How a steer reaches an agent without Reasonix's steer extension.
const (
	// SteerExtension: Reasonix's `_reasonix.io/session/steer`.
	SteerExtension = "extension"
	// SteerCancelPrompt: the running turn is cancelled, then the steer text is the next prompt.
	SteerCancelPrompt = "cancel_then_prompt"
	// SteerQueue: the steer text is sent as the next prompt once the running turn ends.
	SteerQueue = "queued_prompt"
)

// HomeKind names the shape of an agent's private home.
type HomeKind string

const (
	HomeReasonix HomeKind = "reasonix" // ~/.reasonix (prepared by the engine itself)
	HomeClaude   HomeKind = "claude"   // ~/.claude as CLAUDE_CONFIG_DIR
	HomeCodex    HomeKind = "codex"    // ~/.codex as CODEX_HOME
	HomeGemini   HomeKind = "gemini"   // ~/.gemini/settings.json
	HomeQwen     HomeKind = "qwen"     // ~/.qwen/settings.json
	HomeOpencode HomeKind = "opencode" // ~/.config/opencode/opencode.json
)

// builtin are the profiles before any override.
func builtin(name string) (Profile, bool) {
	switch name {
	case "", Reasonix:
		return Profile{Name: Reasonix, Command: []string{"reasonix", "acp"}, Extensions: true,
			Steer: SteerExtension, Layout: HomeReasonix, Install: "npm install -g reasonix"}, true
	case Claude:
		return Profile{Name: Claude, Command: []string{"claude-agent-acp"},
			Env: []string{"ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_MODEL",
				"ANTHROPIC_SMALL_FAST_MODEL", "ANTHROPIC_CUSTOM_HEADERS"},
			SetEnv: []string{"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1"},
			Mode:   "default",
			// Only the user settings of the private home, never a repository's own
			// .claude/settings.json, which could allow writes without asking.
			NewSessionMeta: map[string]any{"claudeCode": map[string]any{"options": map[string]any{"settingSources": []any{"user"}}}},
			OptionIDs:      map[Decision][]string{AllowOnce: {"allow"}, AllowAlways: {"allow_always"}, RejectOnce: {"reject"}},
			Steer:          SteerCancelPrompt, Layout: HomeClaude, Install: "npm install -g @zed-industries/claude-agent-acp@0.23.1"}, true
	case Codex:
		return Profile{Name: Codex, Command: []string{"codex-acp"},
			Env:  []string{"OPENAI_API_KEY", "CODEX_API_KEY", "OPENAI_BASE_URL"},
			Mode: "read-only",
			OptionIDs: map[Decision][]string{AllowOnce: {"approved"}, AllowAlways: {"approved-for-session", "approved-execpolicy-amendment"},
				RejectOnce: {"abort", "denied"}},
			Steer: SteerCancelPrompt, Layout: HomeCodex, Install: "npm install -g @zed-industries/codex-acp@0.16.0"}, true
	case Gemini:
		return Profile{Name: Gemini, Command: []string{"gemini", "--acp"},
			Env:    []string{"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL", "GEMINI_MODEL"},
			SetEnv: []string{"GEMINI_CLI_NO_RELAUNCH=true"},
			Mode:   "default",
			OptionIDs: map[Decision][]string{AllowOnce: {"proceed_once"}, AllowAlways: {"proceed_always"},
				RejectOnce: {"cancel"}},
			Steer: SteerCancelPrompt, Layout: HomeGemini, UsesFS: true, Install: "npm install -g @google/gemini-cli@0.61.0"}, true
	case Qwen:
		return Profile{Name: Qwen, Command: []string{"qwen", "--acp", "--auth-type", "openai"},
			Env:  []string{"OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_MODEL"},
			Mode: "default",
			OptionIDs: map[Decision][]string{AllowOnce: {"proceed_once"}, AllowAlways: {"proceed_always"},
				RejectOnce: {"cancel"}},
			Steer: SteerCancelPrompt, Layout: HomeQwen, Install: "npm install -g @qwen-code/qwen-code@0.24.4"}, true
	case Opencode:
		return Profile{Name: Opencode, Command: []string{"opencode", "acp"},
			SetEnv: []string{"OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_MODELS_FETCH=1",
				"OPENCODE_DISABLE_DEFAULT_PLUGINS=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1", "OPENCODE_DISABLE_CLAUDE_CODE=1",
				"OPENCODE_DISABLE_PROJECT_CONFIG=1"},
			OptionIDs: map[Decision][]string{AllowOnce: {"once"}, AllowAlways: {"always"}, RejectOnce: {"reject"}},
			Steer:     SteerCancelPrompt, Layout: HomeOpencode, Install: "npm install -g opencode-ai@1.18.33"}, true
	}
	return Profile{}, false
}

// ErrUnknown: the worker name is none of Names.
var ErrUnknown = errors.New("agents: unknown worker")

// ErrCommand: an override's command line is not a plain argv.
var ErrCommand = errors.New("agents: command line is not a plain argv")

// OverrideVar is the variable that overrides the command line of the worker name.
func OverrideVar(name string) string { return "REASONIXCTL_WORKER_" + strings.ToUpper(name) }

// Lookup returns the profile of name ("" is reasonix), with its command line overridden by
// REASONIXCTL_WORKER_<NAME> in env when that is set.
func Lookup(name string, env []string) (Profile, error) {
	p, ok := builtin(name)
	if !ok {
		return Profile{}, fmt.Errorf("%w %q (want one of %s)", ErrUnknown, name, strings.Join(Names, ", "))
	}
	if line, set := lookupEnv(env, OverrideVar(p.Name)); set && strings.TrimSpace(line) != "" {
		argv, err := SplitCommand(line)
		if err != nil {
			return Profile{}, fmt.Errorf("%s: %w", OverrideVar(p.Name), err)
		}
		p.Command, p.Overridden = argv, true
	}
	return p, nil
}

// MustLookup is Lookup of a built-in name without overrides; it panics on an unknown name.
func MustLookup(name string) Profile {
	p, ok := builtin(name)
	if !ok {
		panic(fmt.Sprintf("agents: unknown worker %q", name))
	}
	return p
}

// Known reports whether name is a worker name ("" is reasonix).
func Known(name string) bool { return name == "" || slices.Contains(Names, name) }

// IsReasonix reports whether p is Reasonix's profile (also the zero Profile).
func (p Profile) IsReasonix() bool { return p.Name == "" || p.Name == Reasonix }

// OptionFallback returns, for a decision, the option ids to look for when no offered option
// has the decision's kind.
func (p Profile) OptionFallback(d Decision) []string { return p.OptionIDs[d] }

// SplitCommand splits an override's command line into argv: words separated by blanks, single
// quotes literal, double quotes literal but for nothing (no expansion at all). Anything a shell
// would expand, redirect or chain, and a backslash, is refused: the line names a program and
// its arguments, never a script.
func SplitCommand(line string) ([]string, error) {
	var argv []string
	var word strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				argv = append(argv, word.String())
				word.Reset()
				inWord = false
			}
		case c == '\'' || c == '"':
			j := strings.IndexByte(line[i+1:], c)
			if j < 0 {
				return nil, fmt.Errorf("%w: unterminated %c quote", ErrCommand, c)
			}
			quoted := line[i+1 : i+1+j]
			if c == '"' && strings.ContainsAny(quoted, "$`\\!") {
				return nil, fmt.Errorf("%w: %q inside double quotes would be expanded", ErrCommand, quoted)
			}
			word.WriteString(quoted)
			inWord = true
			i += j + 1
		case strings.IndexByte("$`\\;|&<>(){}*?[]~#!\n\r=", c) >= 0 && !(c == '=' && inWord):
			return nil, fmt.Errorf("%w: %q at byte %d", ErrCommand, c, i)
		case c < 0x20 || c == 0x7f:
			return nil, fmt.Errorf("%w: control character at byte %d", ErrCommand, i)
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		argv = append(argv, word.String())
	}
	if len(argv) == 0 {
		return nil, fmt.Errorf("%w: empty", ErrCommand)
	}
	if strings.Contains(argv[0], "=") {
		return nil, fmt.Errorf("%w: %q sets a variable, not a program", ErrCommand, argv[0])
	}
	return argv, nil
}

func lookupEnv(env []string, key string) (string, bool) {
	v, set := "", false
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v, set = val, true // the last one wins, as for a process that gets env
		}
	}
	return v, set
}

// userHome is the HOME env names, else the process's own.
func userHome(env []string) string {
	if h, _ := lookupEnv(env, "HOME"); strings.HasPrefix(h, "/") {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Denial codes. They are stable: supervisors, journals and metrics match on them.
const (
	// Metadata of an execute request.
	CodeMetadataInvalid = "metadata_invalid" // _meta missing, malformed or inconsistent with rawInput
	CodeNoStaticArgv    = "no_static_argv"   // compound shell command: the worker sent no argv
	CodeCwdEscape       = "cwd_escape"       // the command's real cwd is outside the worktree

	// Hard denials: no contract can allow these.
	CodeRemoteAccess          = "remote_access"
	CodeNetworkAccess         = "network_access"
	CodePrivilegeEscalation   = "privilege_escalation"
	CodeDestructiveFilesystem = "destructive_filesystem"
	CodeShellEval             = "shell_eval"
	CodeInlineCode            = "inline_code"
	CodePublishRelease        = "publish_release"
	CodePathEscape            = "path_escape" // also: a structured tool path outside the worktree

	// Allow classes whose forbidden forms are denied whatever the contract says.
	CodeGitMutation       = "git_mutation"
	CodeUnsafeReadCommand = "unsafe_read_command"
	CodeEnvInjection      = "env_injection"

	// Neither a safe class nor an exact contract command. In supervised mode the engine may ask
	// a person instead of denying (see Decision.Askable).
	CodeUnknownExecutable = "unknown_executable"

	// What an agent other than Reasonix asks for that the policy cannot check: a command that
	// is not plain argv (ClassifyForeignExec), a tool call that names no path
	// (ForeignEditRequestFromToolCall). A person is asked; the policy never allows them.
	CodeNotPlainArgv    = "not_plain_argv"
	CodeUnscopedForeign = "unscoped_foreign"

	// Structured tool calls (ClassifyEdit).
	CodeGitControlPath    = "git_control_path"    // a path with a .git segment
	CodeCredentialPath    = "credential_path"     // .ssh, .env, *.pem, … (see redact.IsCredentialPath)
	CodeSymlinkEscape     = "symlink_escape"      // inside the worktree by name, outside once resolved
	CodeForbiddenPath     = "forbidden_path"      // matches the contract's forbidden_scope
	CodeOutsideWriteScope = "outside_write_scope" // an edit of a path write_scope does not allow
	CodeRuntimeMetadata   = "runtime_metadata"    // an edit under .reasonix
	CodeUnscopedRequest   = "unscoped_request"    // an edit without paths, or a read without any input
	CodeToolKindPrefix    = "tool_kind_"          // + the ACP tool kind that is never allowed
)

// Watchdog timeout of the built-in allow classes (read-only git and read commands), seconds.
const ReadTimeoutSeconds = 120

// Decision is the answer to one permission request.
type Decision struct {
	Allow          bool
	Code           string // empty when allowed
	Reason         string // what was decided and why, for people and for the recovery steer
	Hint           string // how the worker can proceed (denials only)
	TimeoutSeconds int    // watchdog for an allowed command; 0 for structured tools
}

// Askable reports whether a person may be asked about this denial in supervised mode: unknown
// executables, and what a foreign agent asks for that the policy cannot check; never hard
// denials or malformed requests.
func (d Decision) Askable() bool {
	return !d.Allow && (d.Code == CodeUnknownExecutable || d.Code == CodeNotPlainArgv || d.Code == CodeUnscopedForeign)
}

// Grantable reports whether a standing grant may answer for a person here: only for an
// unknown executable, whose exact argv a grant names.
func (d Decision) Grantable() bool { return !d.Allow && d.Code == CodeUnknownExecutable }

func allow(timeout int, reason string) Decision {
	return Decision{Allow: true, Reason: reason, TimeoutSeconds: timeout}
}

func deny(code, reason string) Decision {
	return Decision{Code: code, Reason: reason, Hint: hintFor(code)}
}

var hints = map[string]string{
	CodeMetadataInvalid:       "Retry as one simple command run from the worktree; the request's metadata could not be verified.",
	CodeNoStaticArgv:          "Send one simple command without pipes, &&, ;, redirection or substitution, so that its argv can be checked.",
	CodeCwdEscape:             "Run commands from a directory inside the worktree.",
	CodeRemoteAccess:          "Remote services are the supervisor's business; stop and report what you need.",
	CodeNetworkAccess:         "There is no network access; work with what is in the worktree.",
	CodePrivilegeEscalation:   "Run commands as the current user only.",
	CodeDestructiveFilesystem: "Change files with the structured edit tools (write_file, edit_file) inside the write scope, not with shell commands.",
	CodeShellEval:             "Run the program itself as one simple command, without a shell or a wrapper.",
	CodeInlineCode:            "Put code in a file inside the write scope, or run a command listed in the contract.",
	CodePublishRelease:        "Publishing and releasing belong to the supervisor; stop and report instead.",
	CodePathEscape:            "Use repository-relative paths inside the worktree: no absolute paths, no '..', no credential files.",
	CodeGitMutation:           "Only read-only git commands (status, diff, show, log, …) are allowed; the supervisor stages and commits.",
	CodeUnsafeReadCommand:     "Use the plain read-only form of the command, without options that write, execute or follow.",
	CodeEnvInjection:          "env may only set CI, NO_COLOR, FORCE_COLOR, NODE_ENV, TZ, LANG, LANGUAGE or LC_* before the command.",
	CodeNotPlainArgv:          "Send one simple command without pipes, &&, ;, redirection, substitution or globs, so that the policy can check its argv instead of asking a person.",
	CodeUnscopedForeign:       "Name the files the tool works on in its locations, so that its scope can be checked instead of asking a person.",
	CodeUnknownExecutable:     "Run only the contract's verification or allowed commands (exact argv and cwd) or simple read-only commands; if you need more, stop and ask the supervisor for a new contract.",
	CodeGitControlPath:        "Git control files belong to the supervisor; edit only working-tree files.",
	CodeCredentialPath:        "Credential files are never available to the worker.",
	CodeSymlinkEscape:         "Edit the file inside the worktree directly, not through a symlink that leads outside it.",
	CodeForbiddenPath:         "The contract forbids this path; stop and report if the task needs it.",
	CodeOutsideWriteScope:     "Edit only paths in the contract's write scope; stop and report if the task needs more.",
	CodeRuntimeMetadata:       ".reasonix holds runtime metadata and is never part of the result; edit other files.",
	CodeUnscopedRequest:       "Name the files the tool works on, so that its scope can be checked.",
}

func hintFor(code string) string {
	if h, ok := hints[code]; ok {
		return h
	}
	return "This kind of tool call is not available to the worker; use the edit, read and search tools or a simple command."
}

// Fingerprint identifies a denial for the repeated-denial rule: the code, a colon and the first
// 16 hex digits of the sha256 of {kind, code, argv, cwd} as JSON. For structured tools pass the
// tool kind and its paths as argv.
func Fingerprint(kind, code string, argv []string, cwd string) string {
	if argv == nil {
		argv = []string{}
	}
	b, _ := json.Marshal(struct {
		Kind string   `json:"kind"`
		Code string   `json:"code"`
		Argv []string `json:"argv"`
		Cwd  string   `json:"cwd"`
	}{kind, code, argv, cwd})
	sum := sha256.Sum256(b)
	return code + ":" + hex.EncodeToString(sum[:])[:16]
}

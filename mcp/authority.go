package mcp

import (
	"encoding/json"
	"net/url"
	"path/filepath"
	"strings"

	"reasonixctl/core"
)

// sandboxMetaKey is the request _meta key under which Codex sends its sandbox state to servers
// that advertise the capability of the same name.
const sandboxMetaKey = "codex/sandbox-state-meta"

// sandboxMeta is the part of Codex's sandbox state the authority depends on.
type sandboxMeta struct {
	PermissionProfile *permissionProfile `json:"permissionProfile"`
	SandboxCwd        string             `json:"sandboxCwd"`
}

// permissionProfile mirrors Codex's PermissionProfile: {type: managed|disabled|external}; managed
// carries file_system {type: restricted|unrestricted, entries} and network restricted|enabled.
type permissionProfile struct {
	Type       string `json:"type"`
	FileSystem *struct {
		Type    string    `json:"type"`
		Entries []fsEntry `json:"entries"`
	} `json:"file_system"`
	Network string `json:"network"`
}

type fsEntry struct {
	Path struct {
		Type  string `json:"type"` // path | special | glob_pattern
		Path  string `json:"path"`
		Value *struct {
			Kind    string `json:"kind"`
			Subpath string `json:"subpath"`
		} `json:"value"`
	} `json:"path"`
	Access string `json:"access"` // read | write | none (older Codex: deny)
}

// ParseAuthority derives where a delegate or finalize may act from the request's _meta, and
// nothing else: the model cannot name a repository. configNetwork is the operator's consent
// (CODEX_REASONIX_NETWORK=on); the worker gets the network only if Codex's own sandbox has it too.
// It is pure: it neither reads the file system nor the environment.
func ParseAuthority(meta map[string]any, configNetwork bool) (core.Authority, error) {
	raw, ok := meta[sandboxMetaKey]
	if !ok || raw == nil {
		return core.Authority{}, core.Errorf(core.CodeMissingSandboxMetadata, nil,
			"missing %s request metadata; use a Codex version that sends it", sandboxMetaKey)
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return core.Authority{}, badMeta("not encodable: %v", err)
	}
	var m sandboxMeta
	if err := json.Unmarshal(b, &m); err != nil {
		return core.Authority{}, badMeta("not an object of the expected shape: %v", err)
	}
	cwd, err := parseSandboxCwd(m.SandboxCwd)
	if err != nil {
		return core.Authority{}, err
	}
	p := m.PermissionProfile
	if p == nil {
		return core.Authority{}, badMeta("permissionProfile is missing")
	}
	writable, err := p.writable(cwd)
	if err != nil {
		return core.Authority{}, err
	}
	if !writable {
		return core.Authority{}, core.Errorf(core.CodeReadOnlySandbox,
			&core.ReadOnlySandbox{SandboxCwd: cwd, PermissionProfile: p.Type},
			"the Codex sandbox cannot write %s; switch Codex to a workspace-write permission profile", cwd)
	}
	network := p.Type != "disabled" && p.Network == "enabled" && configNetwork
	return core.Authority{Cwd: cwd, Writable: true, Network: network}, nil
}

func badMeta(format string, args ...any) *core.Error {
	return core.Errorf(core.CodeMissingSandboxMetadata, nil, sandboxMetaKey+" is unusable: "+format, args...)
}

// parseSandboxCwd accepts an absolute path or a local file: URI and returns a clean path.
func parseSandboxCwd(s string) (string, error) {
	if s == "" {
		return "", badMeta("sandboxCwd is missing")
	}
	p := s
	if strings.HasPrefix(s, "file:") {
		u, err := url.Parse(s)
		if err != nil {
			return "", badMeta("sandboxCwd is not a valid file URI")
		}
		if u.Host != "" && u.Host != "localhost" {
			return "", badMeta("sandboxCwd names a remote host")
		}
		p = u.Path
	}
	if strings.ContainsRune(p, 0) || !filepath.IsAbs(p) {
		return "", badMeta("sandboxCwd must be an absolute path")
	}
	return filepath.Clean(p), nil
}

// writable says whether the profile lets Codex write cwd. A restricted file system is resolved
// the way Codex resolves it: the most specific entry containing cwd decides, and on a tie none
// beats write beats read.
func (p *permissionProfile) writable(cwd string) (bool, error) {
	switch p.Type {
	case "disabled", "external":
		return true, nil
	case "managed":
	default:
		return false, badMeta("unknown permissionProfile type %q", p.Type)
	}
	if p.FileSystem == nil {
		return false, badMeta("managed permissionProfile has no file_system")
	}
	switch p.FileSystem.Type {
	case "unrestricted":
		return true, nil
	case "restricted":
	default:
		return false, badMeta("unknown file_system type %q", p.FileSystem.Type)
	}
	bestDepth, bestRank := -1, 0
	for _, e := range p.FileSystem.Entries {
		target, ok := e.resolve(cwd)
		if !ok || !within(cwd, target) {
			continue
		}
		depth, rank := pathDepth(target), accessRank(e.Access)
		if depth > bestDepth || (depth == bestDepth && rank > bestRank) {
			bestDepth, bestRank = depth, rank
		}
	}
	return bestRank == accessRank("write"), nil
}

// resolve turns an entry into the absolute directory it governs; entries that cannot cover cwd
// (glob patterns, temp directories, unknown special paths) report false.
func (e fsEntry) resolve(cwd string) (string, bool) {
	switch e.Path.Type {
	case "path":
		p, err := parseSandboxCwd(e.Path.Path)
		return p, err == nil
	case "special":
		if e.Path.Value == nil {
			return "", false
		}
		switch e.Path.Value.Kind {
		case "root":
			return "/", true
		case "current_working_directory":
			return cwd, true
		case "project_roots":
			sub := e.Path.Value.Subpath
			if filepath.IsAbs(sub) {
				return "", false
			}
			return filepath.Join(cwd, sub), true
		}
	}
	return "", false
}

func accessRank(access string) int {
	switch access {
	case "read":
		return 1
	case "write":
		return 2
	case "none", "deny":
		return 3
	}
	return 0
}

func within(path, dir string) bool {
	if dir == "/" {
		return true
	}
	return path == dir || strings.HasPrefix(path, dir+"/")
}

func pathDepth(p string) int {
	if p == "/" {
		return 0
	}
	return strings.Count(p, "/")
}

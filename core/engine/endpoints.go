package engine

import (
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// The worker's model endpoints: the only places its sandbox's network reaches (issue 40). They
// are read from the person's own configuration, never from the copy in the worker's home, which
// the worker can write: a worker that named another address there would reach it at its next
// start.

// reasonixDefaultEndpoint is where Reasonix goes when no provider is configured: its built-in
// DeepSeek presets.
const reasonixDefaultEndpoint = "api.deepseek.com:443"

// reasonixKindEndpoints are the endpoints of a provider configured without a base_url, by its
// kind or, failing that, its name (Reasonix derives a default from either).
var reasonixKindEndpoints = map[string]string{
	"deepseek":  reasonixDefaultEndpoint,
	"openai":    "api.openai.com:443",
	"anthropic": "api.anthropic.com:443",
}

// workerEndpoints are the host:port values spec's worker must reach, from its configuration as
// env points at it. For Reasonix: the base URL of each provider in the person's config.toml
// ($REASONIX_HOME, else ~/.reasonix), else the DeepSeek default. A configuration that cannot be
// read gives the default only: the worker then fails to reach anything else, loudly, rather than
// reaching more.
func workerEndpoints(_ WorkerSpec, env []string) []string {
	rx := userReasonixHome(env)
	if rx == "" {
		return []string{reasonixDefaultEndpoint}
	}
	b, err := os.ReadFile(filepath.Join(rx, "config.toml"))
	if err != nil {
		return []string{reasonixDefaultEndpoint}
	}
	return reasonixEndpoints(b)
}

// reasonixConfig is the part of Reasonix's config.toml that names where its providers are.
type reasonixConfig struct {
	Providers []struct {
		Name    string `toml:"name"`
		Kind    string `toml:"kind"`
		BaseURL string `toml:"base_url"`
	} `toml:"providers"`
}

// reasonixEndpoints reads the providers' endpoints from a Reasonix config.toml. Defining
// providers replaces Reasonix's built-in presets, so the default counts only without any.
func reasonixEndpoints(config []byte) []string {
	var cfg reasonixConfig
	if _, err := toml.Decode(string(config), &cfg); err != nil || len(cfg.Providers) == 0 {
		return []string{reasonixDefaultEndpoint}
	}
	var out []string
	add := func(ep string) {
		if ep != "" && !slices.Contains(out, ep) {
			out = append(out, ep)
		}
	}
	for _, p := range cfg.Providers {
		if p.BaseURL != "" {
			add(urlEndpoint(p.BaseURL))
			continue
		}
		for _, k := range []string{p.Kind, p.Name} {
			if ep, ok := reasonixKindEndpoints[strings.ToLower(strings.TrimSpace(k))]; ok {
				add(ep)
				break
			}
		}
	}
	if len(out) == 0 {
		return []string{reasonixDefaultEndpoint}
	}
	return out
}

// urlEndpoint is the host:port an http(s) URL connects to, or "" for anything else.
func urlEndpoint(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Hostname() == "" {
		return ""
	}
	port := u.Port()
	switch {
	case port != "":
	case u.Scheme == "https":
		port = "443"
	case u.Scheme == "http":
		port = "80"
	default:
		return ""
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return ""
	}
	return net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

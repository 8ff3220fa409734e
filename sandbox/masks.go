package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

var (
	credentialDirs  = []string{".ssh", ".gnupg", ".aws", ".config", ".codex", ".kube", ".docker", ".password-store", "Library/Keychains"}
	credentialFiles = []string{".netrc", ".npmrc", ".yarnrc", ".gitconfig", ".git-credentials", ".cargo/credentials", ".cargo/credentials.toml", ".pypirc"}
)

// DefaultHidden returns the credential folders and files masked wherever a sandboxed command is
// shown a folder that holds them (a toolchain's root under a home, a checkout): the
// specification's list under the running user's HOME and under /root, plus /root itself. Homes
// themselves are never shown (privatePlaces).
func DefaultHidden() (dirs, files []string) {
	homes := []string{"/root"}
	if h, err := os.UserHomeDir(); err == nil && filepath.IsAbs(h) && filepath.Clean(h) != "/root" {
		homes = append(homes, filepath.Clean(h))
	}
	for _, h := range homes {
		for _, d := range credentialDirs {
			dirs = append(dirs, filepath.Join(h, d))
		}
		for _, f := range credentialFiles {
			files = append(files, filepath.Join(h, f))
		}
	}
	return append(dirs, "/root"), files
}

// within reports whether p is dir or lies below it (both clean and absolute).
func within(p, dir string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}

// strictlyWithin reports whether p lies below dir.
func strictlyWithin(p, dir string) bool { return p != dir && within(p, dir) }

// resolveExisting returns the real path of p, or "" when p does not exist.
func resolveExisting(p string) string {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return ""
	}
	return r
}

// lookPath resolves argv0 against the command's PATH the way the command itself will.
func lookPath(argv0, pathEnv, dir string) string {
	if strings.Contains(argv0, "/") {
		if !filepath.IsAbs(argv0) {
			argv0 = filepath.Join(dir, argv0)
		}
		return argv0
	}
	for _, d := range filepath.SplitList(pathEnv) {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		p := filepath.Join(d, argv0)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

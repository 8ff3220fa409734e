package redact

import (
	"regexp"
	"strings"
)

// credentialDirs are directory names that hold credentials wherever they appear in a path.
var credentialDirs = []string{".aws", ".azure", ".docker", ".gnupg", ".kube", ".ssh"}

var credentialBase = regexp.MustCompile(`(?i)^(?:\.env.*|\.netrc|\.npmrc|\.pypirc|credentials(?:\.json)?|id_(?:rsa|dsa|ecdsa|ed25519)|kubeconfig|service[-_]?account.*\.json|.*\.(?:jks|keystore|p12|pfx|key|pem))$`)

var envExamples = regexp.MustCompile(`(?i)^\.env\.(?:example|sample|template)$`)

// IsCredentialPath reports whether a path (absolute or relative, either separator) names a
// credential store: a segment such as .ssh or .aws, or a basename such as .env, .npmrc, id_rsa
// or *.pem. The .env example, sample and template files are not credentials.
func IsCredentialPath(p string) bool {
	if hasSegment(p, credentialDirs...) {
		return true
	}
	segs := strings.FieldsFunc(p, isSep)
	if len(segs) == 0 {
		return false
	}
	base := segs[len(segs)-1]
	return credentialBase.MatchString(base) && !envExamples.MatchString(base)
}

// IsGitControlPath reports whether any segment of p is .git: the repository's control data,
// which only the supervisor may touch.
func IsGitControlPath(p string) bool { return hasSegment(p, ".git") }

// IsRuntimeMetadataPath reports whether a repository-relative path lies under .reasonix, the
// worker's runtime metadata, which never becomes part of a task's result.
func IsRuntimeMetadataPath(p string) bool {
	segs := strings.FieldsFunc(p, isSep)
	for len(segs) > 0 && segs[0] == "." {
		segs = segs[1:]
	}
	return len(segs) > 0 && strings.EqualFold(segs[0], ".reasonix")
}

// HomeCredentialDirs lists the directories under a home directory that a sandbox must mask.
func HomeCredentialDirs() []string {
	return []string{".ssh", ".gnupg", ".aws", ".config", ".codex", ".kube", ".docker", ".password-store", "Library/Keychains"}
}

// HomeCredentialFiles lists the files under a home directory that a sandbox must mask.
func HomeCredentialFiles() []string {
	return []string{".netrc", ".npmrc", ".yarnrc", ".gitconfig", ".git-credentials"}
}

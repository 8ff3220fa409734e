package gitx

import (
	"context"
	"strings"
)

// BlobAt names the blob path holds in tree, or "" when the tree has none there (or holds a
// directory, link target or submodule there).
func BlobAt(ctx context.Context, commonDir, tree, path string) (string, error) {
	if !hex40.MatchString(tree) {
		return "", badInput("BlobAt: %q is not a 40-hex tree", tree)
	}
	out, err := git(ctx, CodeInternal, ReasonGitFailed, inRepository(commonDir), "ls-tree", "-z", "--full-tree", tree, "--", path)
	if err != nil {
		return "", err
	}
	rec := strings.TrimSuffix(string(out), "\x00")
	meta, name, ok := strings.Cut(rec, "\t")
	f := strings.Fields(meta)
	if !ok || name != path || len(f) != 3 || f[1] != "blob" {
		return "", nil
	}
	return f[2], nil
}

// FileAt returns the bytes path holds in tree: nil without error when the tree has no blob
// there, or when it is larger than maxBytes (then too is the second result false).
func FileAt(ctx context.Context, commonDir, tree, path string, maxBytes int64) ([]byte, bool, error) {
	hash, err := BlobAt(ctx, commonDir, tree, path)
	if err != nil || hash == "" {
		return nil, false, err
	}
	var content []byte
	err = ReadObjects(ctx, commonDir, []string{hash}, maxBytes, func(o Object) error {
		content = o.Content
		return nil
	})
	return content, content != nil, err
}

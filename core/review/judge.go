package review

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"reasonixctl/core"
	"reasonixctl/core/contract"
	"reasonixctl/core/gitx"
	"reasonixctl/core/redact"
)

// maxFileBytes is the largest file a commit may hold.
const maxFileBytes = 10 << 20

// Refusal is one reason a changed path cannot enter the commit; core has the type, since
// finalize's error details list refusals.
type Refusal = core.PathRefusal

// Refuse is a Refusal of path for reason with its hint; path and detail are redacted.
func Refuse(path, reason, format string, args ...any) Refusal {
	// A path name can hold a secret as well as a file can.
	return Refusal{Path: redact.String(path), Reason: reason, Detail: redact.String(fmt.Sprintf(format, args...)), Hint: core.RefusalHint(reason)}
}

// JudgeTree judges every changed path of tree by what it is — its name, its type (file,
// symlink, gitlink), where a symlink leads, its size and its content — reading the objects the
// commit would hold, never the file system: a symlink or a later write cannot hide anything.
// Content that cannot be read is refused, not skipped. reasonix lists tracked changes under
// .reasonix, nested the repositories git could not snapshot.
func JudgeTree(ctx context.Context, commonDir string, c *contract.Contract, tree string, files []gitx.FileChange, reasonix, nested []string) ([]Refusal, error) {
	var out []Refusal
	links := map[string]bool{}
	for _, f := range files {
		if f.NewMode == gitx.ModeSymlink {
			links[f.Path] = true
		}
	}
	byHash := map[string][]gitx.FileChange{}
	var hashes []string
	for _, f := range files {
		out = append(out, judgeName(c, f.Path)...)
		if f.NewMode == gitx.ModeGitlink || f.OldMode == gitx.ModeGitlink {
			out = append(out, Refuse(f.Path, core.RefusedNestedRepository, "a gitlink (mode 160000) to a commit of another repository"))
		}
		for dir := parentOf(f.Path); dir != ""; dir = parentOf(dir) {
			if links[dir] {
				out = append(out, Refuse(f.Path, core.RefusedUnderSymlink, "lies under %s, which is a symlink", dir))
				break
			}
		}
		if gitx.IsBlobMode(f.NewMode) {
			if _, seen := byHash[f.NewHash]; !seen {
				hashes = append(hashes, f.NewHash)
			}
			byHash[f.NewHash] = append(byHash[f.NewHash], f)
		}
	}
	for _, p := range reasonix {
		out = append(out, Refuse(p, core.RefusedRuntimeMetadata, "a tracked file under .reasonix"))
	}
	for _, p := range nested {
		out = append(out, Refuse(p, core.RefusedNestedRepository, "a repository of its own without a commit checked out"))
	}

	var linkTexts []gitx.FileChange
	texts := map[string]string{}
	read := map[string]bool{}
	err := gitx.ReadObjects(ctx, commonDir, hashes, maxFileBytes, func(o gitx.Object) error {
		read[o.Hash] = true
		for _, f := range byHash[o.Hash] {
			switch {
			case o.Type != "blob":
				out = append(out, Refuse(f.Path, core.RefusedUnscannable, "its object %s is %s, not a readable blob", o.Hash, o.Type))
			case o.Content == nil:
				out = append(out, Refuse(f.Path, core.RefusedTooLarge, "%d bytes, over the %d-byte limit; not scanned", o.Size, maxFileBytes))
			default:
				if lines := secretLines(o.Content); len(lines) > 0 {
					what := "line"
					if f.NewMode == gitx.ModeSymlink {
						what = "symlink target text, line"
					}
					out = append(out, Refuse(f.Path, core.RefusedSecret, "%s %s", what, strings.Join(lines, ", ")))
				} else if f.NewMode == gitx.ModeSymlink {
					linkTexts = append(linkTexts, f)
					texts[f.Path] = string(o.Content)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, h := range hashes {
		if !read[h] {
			for _, f := range byHash[h] {
				out = append(out, Refuse(f.Path, core.RefusedUnscannable, "its content could not be read"))
			}
		}
	}
	resolver := gitx.NewLinkResolver(commonDir, tree)
	for _, f := range linkTexts {
		rs, err := judgeLink(ctx, resolver, c, f.Path, texts[f.Path])
		if err != nil {
			return nil, err
		}
		out = append(out, rs...)
	}
	slices.SortStableFunc(out, func(a, b Refusal) int {
		return cmp.Compare(slices.Index(core.RefusalOrder, a.Reason), slices.Index(core.RefusalOrder, b.Reason))
	})
	return out, nil
}

// judgeName judges a path by its name alone: sensitive, Git control, forbidden or out of scope
// (only the first that applies: a credential file is refused as sensitive, not as out of scope).
func judgeName(c *contract.Contract, p string) []Refusal {
	switch {
	case !utf8.ValidString(p):
		return []Refusal{Refuse(strings.ToValidUTF8(p, "\uFFFD"), core.RefusedBadName, "the name %s is not valid UTF-8", strconv.QuoteToASCII(p))}
	case redact.IsGitControlPath(p):
		return []Refusal{Refuse(p, core.RefusedGitControl, "a .git path")}
	case redact.IsCredentialPath(p):
		return []Refusal{Refuse(p, core.RefusedSensitive, "a credential file")}
	case redact.IsRuntimeMetadataPath(p):
		return []Refusal{Refuse(p, core.RefusedRuntimeMetadata, "under .reasonix")}
	case c.Forbidden(p):
		return []Refusal{Refuse(p, core.RefusedForbidden, "matches forbidden_scope")}
	case !c.WriteAllowed(p):
		return []Refusal{Refuse(p, core.RefusedOutsideScope, "not in write_scope")}
	}
	return nil
}

// judgeLink judges where a symlink leads inside the committed tree.
func judgeLink(ctx context.Context, links *gitx.LinkResolver, c *contract.Contract, path, text string) ([]Refusal, error) {
	lt, err := links.Resolve(ctx, path, text)
	if err != nil {
		return nil, err
	}
	shown := strconv.Quote(core.TruncateText(text, 200))
	var out []Refusal
	switch {
	case lt.Escapes:
		return []Refusal{Refuse(path, core.RefusedSymlinkEscape, "links to %s, outside the repository", shown)}, nil
	case sensitivePath(lt.Resolved):
		out = append(out, Refuse(path, core.RefusedSymlinkSensitive, "links to %s, which is %s", lt.Resolved, sensitiveKind(lt.Resolved)))
	}
	switch {
	case lt.Dangling:
		out = append(out, Refuse(path, core.RefusedSymlinkDangling, "links to %s; %s does not exist in the change", shown, lt.Resolved))
	case len(out) == 0 && !c.WriteAllowed(lt.Resolved):
		out = append(out, Refuse(path, core.RefusedSymlinkScope, "links to %s, which write_scope does not allow", lt.Resolved))
	}
	return out, nil
}

func sensitivePath(p string) bool {
	return redact.IsGitControlPath(p) || redact.IsCredentialPath(p) || redact.IsRuntimeMetadataPath(p)
}

func sensitiveKind(p string) string {
	switch {
	case redact.IsGitControlPath(p):
		return "a .git path"
	case redact.IsCredentialPath(p):
		return "a credential file"
	}
	return "under .reasonix"
}

// secretLines lists the lines (at most five) where the file scan finds a secret.
func secretLines(content []byte) []string {
	var out []string
	for _, f := range redact.ScanBytes(content) {
		if len(out) == 5 {
			out = append(out, "…")
			break
		}
		out = append(out, strconv.Itoa(f.Line))
	}
	return out
}

func parentOf(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return ""
	}
	return p[:i]
}

// DescribeRefusals is the reason text of refused paths, grouped by reason with each hint once:
// "reason: path (detail), path (detail). Hint: … | reason: …".
func DescribeRefusals(rs []Refusal) string {
	var groups []string
	shown := 0
	for _, reason := range core.RefusalOrder {
		var items []string
		for _, r := range rs {
			if r.Reason != reason {
				continue
			}
			if shown == 20 {
				items = append(items, "…")
				break
			}
			shown++
			item := r.Path
			if r.Detail != "" {
				item += " (" + r.Detail + ")"
			}
			items = append(items, item)
		}
		if len(items) > 0 {
			groups = append(groups, reason+": "+strings.Join(items, ", ")+". Hint: "+core.RefusalHint(reason))
		}
	}
	return strings.Join(groups, " | ")
}

// RefusalError is the finalize error for refused paths: secret_detected when content is a
// secret or could not be scanned, scope_violation when a path is not one the task may commit
// (by name, type or target), verification_failed when only sizes are over the limit.
func RefusalError(rs []Refusal) *core.Error {
	code := core.CodeVerificationFailed
	for _, r := range rs {
		switch r.Reason {
		case core.RefusedSecret, core.RefusedUnscannable:
			code = core.CodeSecretDetected
		case core.RefusedTooLarge:
		default:
			if code != core.CodeSecretDetected {
				code = core.CodeScopeViolation
			}
		}
	}
	var paths []string
	for _, r := range rs {
		paths = append(paths, r.Path)
	}
	slices.Sort(paths)
	return core.Errorf(code, &core.ChangeRefused{
		Reason: rs[0].Reason, Paths: slices.Compact(paths), Refusals: limitRefusals(rs),
	}, "the change cannot be committed: %s", DescribeRefusals(rs))
}

func limitRefusals(rs []Refusal) []Refusal {
	if len(rs) > core.MaxBundleFiles {
		return rs[:core.MaxBundleFiles]
	}
	return rs
}

// HeadRefusal turns a worktree whose HEAD left the task branch or moved past the base into a
// refusal reason text, or returns "" for any other error.
func HeadRefusal(err error) (reason, text string) {
	var ge *gitx.Error
	if !errors.As(err, &ge) || ge.Code != gitx.CodeOwnershipAmbiguous {
		return "", ""
	}
	reason = core.RefusedHeadMoved
	if ge.Reason == gitx.ReasonWrongBranch {
		reason = core.RefusedWrongBranch
	}
	return reason, "ownership_ambiguous: " + reason + ": " + ge.Message + ". Hint: " + core.RefusalHint(reason)
}

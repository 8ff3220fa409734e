package gitx

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Git file modes as they appear in trees and raw diffs.
const (
	ModeNone    = "000000" // the path does not exist on this side
	ModeFile    = "100644"
	ModeExec    = "100755"
	ModeSymlink = "120000"
	ModeGitlink = "160000" // a commit of another repository: a nested repository or submodule
	ModeTree    = "040000"
)

// IsBlobMode reports whether a path of this mode is stored as a blob: a file or a symlink (whose
// blob is the link's target text).
func IsBlobMode(mode string) bool {
	return mode == ModeFile || mode == ModeExec || mode == ModeSymlink
}

// TreeChanges lists every path that differs between base and tree with its modes and new
// object: what a commit of tree on base would change, as the reviewed files are judged at
// finalize. One git process, or none when this process's BuildReview already diffed the same
// two trees (the answer depends on nothing but the two object names).
func TreeChanges(ctx context.Context, commonDir, base, tree string) ([]FileChange, error) {
	if !hex40.MatchString(base) || !hex40.MatchString(tree) {
		return nil, badInput("TreeChanges needs two 40-hex objects")
	}
	if all, ok := changesSeen.get(base, tree); ok {
		return all, nil
	}
	out, err := git(ctx, CodeInternal, ReasonGitFailed, inRepository(commonDir), "diff-tree", "-r", "-z", "--no-renames", "--raw", base, tree)
	if err != nil {
		return nil, err
	}
	var all []FileChange
	rest := out
	for len(rest) > 0 {
		rec, err := nextRawRecord(&rest)
		if err != nil {
			return nil, &Error{Code: CodeInternal, Reason: ReasonGitFailed, Message: "unexpected diff-tree output", Err: err}
		}
		all = append(all, rec)
	}
	return all, nil
}

// nextRawRecord reads one NUL-separated raw diff record (header, path) from *rest.
func nextRawRecord(rest *[]byte) (FileChange, error) {
	field := func() (string, bool) {
		i := bytes.IndexByte(*rest, 0)
		if i < 0 {
			return "", false
		}
		f := string((*rest)[:i])
		*rest = (*rest)[i+1:]
		return f, true
	}
	head, ok1 := field()
	path, ok2 := field()
	h := strings.Fields(head)
	if !ok1 || !ok2 || len(h) != 5 || len(h[4]) != 1 || !strings.HasPrefix(h[0], ":") {
		return FileChange{}, fmt.Errorf("raw record %q", head)
	}
	return FileChange{Path: path, Status: h[4][0], OldMode: strings.TrimPrefix(h[0], ":"), NewMode: h[1], OldHash: h[2], NewHash: h[3]}, nil
}

// Object is one object read by ReadObjects.
type Object struct {
	Hash    string
	Type    string // blob, tree, commit, tag; "missing" when the repository lacks it
	Size    int64
	Content []byte // nil when the object is missing or larger than the limit
}

// ReadObjects streams the objects through one `git cat-file --batch` and calls fn for each, in
// order, from the repository whose common git directory is commonDir. Objects larger than
// maxBytes are skipped over without being kept (Content nil, Size
// says how large): a huge file costs neither memory nor a second process. An error of fn stops
// the read and is returned.
func ReadObjects(ctx context.Context, commonDir string, hashes []string, maxBytes int64, fn func(Object) error) error {
	if len(hashes) == 0 {
		return nil
	}
	for _, h := range hashes {
		if !hex40.MatchString(h) {
			return badInput("ReadObjects: %q is not a 40-hex object name", h)
		}
	}
	gitExe, err := gitPath()
	if err != nil {
		return &Error{Code: CodeInternal, Reason: ReasonGitFailed, Message: "git not found", Err: err}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	execs.Add(1)
	repo := inRepository(commonDir)
	cmd := exec.CommandContext(ctx, gitExe, slices.Concat(safeConfig, repo.conf, []string{"cat-file", "--batch"})...)
	cmd.Dir = repo.dir
	cmd.Env = append(sanitisedEnv(), repo.env...)
	cmd.Stdin = strings.NewReader(strings.Join(hashes, "\n") + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = 5 * time.Second
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return &Error{Code: CodeInternal, Reason: ReasonGitFailed, Message: "cat-file pipe", Err: err}
	}
	if err := cmd.Start(); err != nil {
		return &Error{Code: CodeInternal, Reason: ReasonGitFailed, Message: "cat-file start", Err: err}
	}
	readErr := readBatch(bufio.NewReaderSize(stdout, 64<<10), hashes, maxBytes, fn)
	if readErr != nil {
		cancel() // stop git; its exit error is then of no interest
		_ = cmd.Wait()
		if ctx.Err() != nil && errors.Is(readErr, io.ErrUnexpectedEOF) {
			return ctx.Err()
		}
		return readErr
	}
	if err := cmd.Wait(); err != nil {
		ge := &GitError{Args: []string{"cat-file", "--batch"}, ExitCode: exitCodeOf(err), Stderr: strings.TrimSpace(truncate(stderr.String(), 2000))}
		return &Error{Code: CodeInternal, Reason: ReasonGitFailed, Message: "git cat-file failed", Err: ge}
	}
	return nil
}

func exitCodeOf(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// readBatch parses `cat-file --batch` output: "<oid> <type> <size>\n<content>\n", or
// "<name> missing\n".
func readBatch(r *bufio.Reader, hashes []string, maxBytes int64, fn func(Object) error) error {
	for _, want := range hashes {
		line, err := r.ReadString('\n')
		if err != nil {
			return fmt.Errorf("cat-file: reading the header of %s: %w", want, io.ErrUnexpectedEOF)
		}
		f := strings.Fields(line)
		if len(f) == 2 && f[1] == "missing" {
			if err := fn(Object{Hash: want, Type: "missing"}); err != nil {
				return err
			}
			continue
		}
		if len(f) != 3 || f[0] != want {
			return fmt.Errorf("cat-file: unexpected header %q for %s", strings.TrimSpace(line), want)
		}
		size, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || size < 0 {
			return fmt.Errorf("cat-file: bad size in %q", strings.TrimSpace(line))
		}
		obj := Object{Hash: want, Type: f[1], Size: size}
		if size > maxBytes {
			if _, err := io.CopyN(io.Discard, r, size+1); err != nil {
				return fmt.Errorf("cat-file: skipping %s: %w", want, io.ErrUnexpectedEOF)
			}
		} else {
			obj.Content = make([]byte, size+1)
			if _, err := io.ReadFull(r, obj.Content); err != nil {
				return fmt.Errorf("cat-file: reading %s: %w", want, io.ErrUnexpectedEOF)
			}
			obj.Content = obj.Content[:size]
		}
		if err := fn(obj); err != nil {
			return err
		}
	}
	return nil
}

// TreeEntry is one entry of a tree, found by path.
type TreeEntry struct {
	Mode string
	Type string // blob, tree or commit
	Hash string
}

// LinkTarget is where a symlink in a tree leads, resolved inside that tree the way the file
// system would resolve it after a checkout (each component in turn, following further links).
type LinkTarget struct {
	Text     string // the link's target as stored
	Resolved string // repository-relative path it leads to ("." is the root); with Dangling, how far it got
	Escapes  bool   // an absolute target, or one that climbs above the repository root
	Dangling bool   // leads to nothing in the tree, through a file, or round a loop
	Dir      bool   // leads to a directory
}

// maxLinkHops bounds symlink chains, like the kernel's limit.
const maxLinkHops = 40

// ResolveLink resolves the symlink at linkPath, whose stored target is text, inside tree. It
// reads only the object database (ls-tree per path component it has to look up, cat-file for
// further links on the way), so the answer is the same whatever the worktree holds now.
func ResolveLink(ctx context.Context, commonDir, tree, linkPath, text string) (LinkTarget, error) {
	return NewLinkResolver(commonDir, tree).Resolve(ctx, linkPath, text)
}

// LinkResolver resolves symlinks inside one tree, remembering the paths it has looked up, so
// that many links of one change cost few git processes.
type LinkResolver struct {
	commonDir, tree string
	cache           map[string]TreeEntry
	missing         map[string]bool
}

// NewLinkResolver returns a resolver for tree, reading objects in the repository at commonDir.
func NewLinkResolver(commonDir, tree string) *LinkResolver {
	return &LinkResolver{commonDir: commonDir, tree: tree, cache: map[string]TreeEntry{}, missing: map[string]bool{}}
}

// Resolve is ResolveLink with the resolver's cache.
func (lr *LinkResolver) Resolve(ctx context.Context, linkPath, text string) (LinkTarget, error) {
	res := LinkTarget{Text: text}
	if !hex40.MatchString(lr.tree) {
		return res, badInput("ResolveLink needs a 40-hex tree")
	}
	if strings.HasPrefix(text, "/") {
		res.Escapes = true
		return res, nil
	}
	commonDir := lr.commonDir
	lookup := func(path string) (TreeEntry, bool, error) { return lr.lookup(ctx, path) }
	var stack []string
	if i := strings.LastIndexByte(linkPath, '/'); i >= 0 {
		stack = strings.Split(linkPath[:i], "/")
	}
	queue := strings.Split(text, "/")
	hops := 0
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(stack) == 0 {
				res.Escapes = true
				return res, nil
			}
			stack = stack[:len(stack)-1]
			continue
		}
		stack = append(stack, c)
		e, ok, err := lookup(strings.Join(stack, "/"))
		if err != nil {
			return res, err
		}
		if !ok {
			res.Dangling, res.Resolved = true, strings.Join(stack, "/")
			return res, nil
		}
		switch e.Mode {
		case ModeSymlink:
			hops++
			if hops > maxLinkHops {
				res.Dangling, res.Resolved = true, strings.Join(stack, "/")
				return res, nil
			}
			next, err := catBlob(ctx, commonDir, e.Hash)
			if err != nil {
				return res, err
			}
			if strings.HasPrefix(next, "/") {
				res.Escapes = true
				return res, nil
			}
			// The rest of the path continues from wherever this link leads.
			stack = stack[:len(stack)-1]
			queue = append(strings.Split(next, "/"), queue...)
		case ModeTree, ModeGitlink:
		default:
			if len(queue) > 0 { // a file used as a directory
				res.Dangling, res.Resolved = true, strings.Join(stack, "/")
				return res, nil
			}
		}
	}
	res.Resolved = strings.Join(stack, "/")
	if res.Resolved == "" {
		res.Resolved, res.Dir = ".", true
		return res, nil
	}
	e, _, err := lookup(res.Resolved)
	if err != nil {
		return res, err
	}
	res.Dir = e.Mode == ModeTree || e.Mode == ModeGitlink
	return res, nil
}

// lookup finds path in the tree through `ls-tree`, once per path.
func (lr *LinkResolver) lookup(ctx context.Context, path string) (TreeEntry, bool, error) {
	if e, ok := lr.cache[path]; ok {
		return e, true, nil
	}
	if lr.missing[path] {
		return TreeEntry{}, false, nil
	}
	out, err := gitCmd{at: inRepository(lr.commonDir), env: []string{"GIT_LITERAL_PATHSPECS=1"},
		args: []string{"ls-tree", "-z", "--full-tree", lr.tree, "--", path}}.must(ctx, CodeInternal, ReasonGitFailed)
	if err != nil {
		return TreeEntry{}, false, err
	}
	for _, rec := range bytes.Split(out, []byte{0}) {
		head, name, ok := strings.Cut(string(rec), "\t")
		f := strings.Fields(head)
		if !ok || name != path || len(f) != 3 {
			continue
		}
		e := TreeEntry{Mode: f[0], Type: f[1], Hash: f[2]}
		lr.cache[path] = e
		return e, true, nil
	}
	lr.missing[path] = true
	return TreeEntry{}, false, nil
}

func catBlob(ctx context.Context, commonDir, hash string) (string, error) {
	out, err := git(ctx, CodeInternal, ReasonGitFailed, inRepository(commonDir), "cat-file", "blob", hash)
	return string(out), err
}

// changesSeen keeps the raw changes of the last trees BuildReview diffed, by (base, tree): the
// finalize of a review made by this process then needs no diff of its own.
var changesSeen = &changeCache{m: map[[2]string][]FileChange{}}

type changeCache struct {
	mu    sync.Mutex
	m     map[[2]string][]FileChange
	order [][2]string
}

const changeCacheSize = 256

func (c *changeCache) put(base, tree string, all []FileChange) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := [2]string{base, tree}
	if _, ok := c.m[k]; ok {
		return
	}
	if len(c.order) >= changeCacheSize {
		delete(c.m, c.order[0])
		c.order = c.order[1:]
	}
	c.m[k] = slices.Clone(all)
	c.order = append(c.order, k)
}

func (c *changeCache) get(base, tree string) ([]FileChange, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	all, ok := c.m[[2]string{base, tree}]
	return slices.Clone(all), ok
}

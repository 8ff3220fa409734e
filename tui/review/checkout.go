package review

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// The "apply" line says whether the selected task's change applies to its checkout's HEAD.
// That answer is only as good as the HEAD it was computed on, and the person moves their
// checkout while the dashboard is open (a commit, a switch, a pull). So the line is tied to a
// stamp of the checkout: on every tick the stamp is read again, off the update loop, and a
// stamp that differs from the one read just before the preview was asked asks it again. A
// preview costs git processes; the stamp costs a few small reads, so it can run every tick.

// checkoutStamp is a cheap mark of root's HEAD and index: the bytes of HEAD, of the ref it
// names (or the size and time of packed-refs when the ref is packed) and the size and time of
// the index. A commit, switch, reset, merge, pull or `git add` changes it. Errors are part of
// the stamp, so a checkout that cannot be read keeps one stamp until it can. It reads files
// only: it runs in a tea.Cmd, never in Update.
func checkoutStamp(root string) string {
	if root == "" {
		return ""
	}
	gitDir, commonDir, err := gitDirs(root)
	if err != nil {
		return "unreadable: " + err.Error()
	}
	var b strings.Builder
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	fmt.Fprintf(&b, "HEAD %q %v\n", head, err)
	if ref, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: "); ok && filepath.IsLocal(ref) {
		if oid, err := os.ReadFile(filepath.Join(commonDir, filepath.FromSlash(ref))); err == nil {
			fmt.Fprintf(&b, "ref %q\n", oid)
		} else {
			b.WriteString("packed " + statStamp(filepath.Join(commonDir, "packed-refs")) + "\n")
		}
	}
	b.WriteString("index " + statStamp(filepath.Join(gitDir, "index")))
	return b.String()
}

// gitDirs finds root's git directory (.git, or where a linked worktree's .git file points)
// and the common directory that holds its refs.
func gitDirs(root string) (gitDir, commonDir string, err error) {
	dotGit := filepath.Join(root, ".git")
	fi, err := os.Stat(dotGit)
	if err != nil {
		return "", "", err
	}
	gitDir = dotGit
	if !fi.IsDir() {
		b, err := os.ReadFile(dotGit)
		if err != nil {
			return "", "", err
		}
		p, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
		if !ok {
			return "", "", fmt.Errorf("%s is not a gitdir file", dotGit)
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		gitDir = p
	}
	commonDir = gitDir
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		c := strings.TrimSpace(string(b))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		commonDir = c
	}
	return gitDir, commonDir, nil
}

func statStamp(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return "absent"
	}
	return fmt.Sprintf("%d %d", fi.Size(), fi.ModTime().UnixNano())
}

// watchCheckout reads the task's checkout stamp again, when its apply line is shown and no
// preview or read is under way.
func (r Review) watchCheckout(id string) tea.Cmd {
	rv, ok := r.tasks[id]
	if !ok || rv.detail == nil || rv.previewOf == "" || rv.previewing || rv.stamping {
		return nil
	}
	root := rv.detail.Repository
	rv.stamping = true
	return func() tea.Msg { return Stamped{TaskID: id, Stamp: checkoutStamp(root)} }
}

// onStamp asks the preview again when the checkout moved since it was computed.
func (r Review) onStamp(msg Stamped) tea.Cmd {
	rv := r.task(msg.TaskID)
	rv.stamping = false
	if msg.Stamp == rv.previewStamp {
		return nil
	}
	cmd := r.refreshPreview(msg.TaskID, true)
	if cmd == nil && !rv.previewing {
		// Nothing to preview now (the task left review): this stamp is seen, not news.
		rv.previewStamp = msg.Stamp
	}
	return cmd
}

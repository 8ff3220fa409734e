package sandbox

import (
	"os"
	"path/filepath"
	"slices"
)

// systemDirs are the machine's own programs and libraries, the only part of the host a sandboxed
// process sees besides what its Spec names and the toolchains its PATH resolves to. A merged-/usr
// system has /bin, /lib… as links into /usr; they are re-created as the same links.
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc"}

// etcSecrets are files and folders of /etc that hold secrets of the machine: masked even though
// /etc is shown (as a user they are unreadable anyway; as root they would not be).
var etcSecrets = []string{"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-",
	"/etc/ssl/private", "/etc/security/opasswd", "/etc/sudoers", "/etc/sudoers.d"}

// privatePlaces are places no bind of a toolchain may show, even as the ancestor of what it needs:
// the user's home (credentials, the default state directory, sockets of agents), /root, the host's
// /tmp and /run (sockets of every service, $XDG_RUNTIME_DIR), and the Runner's own Private list
// (the state directory, whose owner socket drives every task).
func (r *Runner) privatePlaces() []string {
	places := []string{"/root", "/tmp", "/run", "/var/run", "/proc", "/sys", "/dev"}
	if h, err := os.UserHomeDir(); err == nil && filepath.IsAbs(h) {
		places = append(places, filepath.Clean(h))
	}
	if d := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(d) {
		places = append(places, filepath.Clean(d))
	}
	for _, p := range r.Private {
		if filepath.IsAbs(p) {
			places = append(places, filepath.Clean(p))
		}
	}
	out := slices.Clone(places)
	for _, p := range places {
		if rp := resolveExisting(p); rp != "" && rp != p {
			out = append(out, rp)
		}
	}
	return out
}

// systemMounts shows the system directories read-only, links as links, and masks /etc's secrets.
func systemMounts() []string {
	var args []string
	for _, d := range systemDirs {
		fi, err := os.Lstat(d)
		switch {
		case err != nil:
			continue
		case fi.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(d)
			if err != nil {
				continue
			}
			args = append(args, "--symlink", target, d)
		case fi.IsDir():
			args = append(args, "--ro-bind", d, d)
		}
	}
	for _, s := range etcSecrets {
		fi, err := os.Lstat(s)
		switch {
		case err != nil || fi.Mode()&os.ModeSymlink != 0:
		case fi.IsDir():
			args = append(args, "--tmpfs", s)
		default:
			args = append(args, "--ro-bind", "/dev/null", s)
		}
	}
	// /etc/ssh holds the machine's private host keys beside the client's configuration.
	if keys, _ := filepath.Glob("/etc/ssh/ssh_host_*_key"); len(keys) > 0 {
		for _, k := range keys {
			args = append(args, "--ro-bind", "/dev/null", k)
		}
	}
	return args
}

// inSystemDirs reports whether p is already shown by systemMounts.
func inSystemDirs(p string) bool {
	for _, d := range systemDirs {
		if within(p, d) {
			return true
		}
		if rd := resolveExisting(d); rd != "" && within(p, rd) {
			return true
		}
	}
	return false
}

// toolchainBinds are the folders to show read-only so that argv0 and every program its PATH
// names run: for each PATH entry and for argv0's folder (both as written and as resolved), the
// toolchain's root — the parent of a folder named bin, so that a toolchain finds its libraries
// beside it (node's lib/node_modules, go's pkg) — or the folder itself when that root would show
// a private place; argv0 alone when even its folder would. The system directories are shown
// already; a folder inside the worktree is the worktree's.
func toolchainBinds(argv0Exe, pathEnv, worktree string, private []string) []string {
	var candidates []string
	for _, d := range filepath.SplitList(pathEnv) {
		if filepath.IsAbs(d) {
			candidates = append(candidates, filepath.Clean(d))
		}
	}
	if argv0Exe != "" {
		candidates = append(candidates, filepath.Dir(argv0Exe))
		if r := resolveExisting(argv0Exe); r != "" {
			candidates = append(candidates, filepath.Dir(r))
		}
	}
	showsPrivate := func(dir string) bool {
		if dir == "/" {
			return true
		}
		for _, p := range private {
			if within(p, dir) {
				return true
			}
		}
		return false
	}
	var out []string
	add := func(dir string) {
		if dir == "" || inSystemDirs(dir) || within(dir, worktree) || showsPrivate(dir) {
			return
		}
		for _, have := range out {
			if within(dir, have) {
				return
			}
		}
		out = slices.DeleteFunc(out, func(have string) bool { return strictlyWithin(have, dir) })
		out = append(out, dir)
	}
	// argv0 itself is shown even when its folder cannot be: a program beside a state directory.
	if argv0Exe != "" {
		for _, exe := range []string{argv0Exe, resolveExisting(argv0Exe)} {
			if exe != "" && showsPrivate(filepath.Dir(exe)) && !showsPrivate(exe) && !inSystemDirs(exe) && !within(exe, worktree) {
				if st, err := os.Stat(exe); err == nil && st.Mode().IsRegular() {
					add(exe)
				}
			}
		}
	}
	for _, c := range candidates {
		for _, dir := range []string{c, resolveExisting(c)} {
			if dir == "" {
				continue
			}
			if st, err := os.Stat(dir); err != nil || !st.IsDir() {
				continue
			}
			root := dir
			if base := filepath.Base(dir); base == "bin" || base == "sbin" {
				root = filepath.Dir(dir)
			}
			if showsPrivate(root) {
				root = dir
			}
			add(root)
		}
	}
	slices.Sort(out)
	return out
}

// maskedWithin returns the masks for credential places and private places that lie strictly
// inside one of the shown folders: a toolchain's root may hold a credentials file, and a
// repository checkout may hold a state directory.
func maskedWithin(shown []string, dirs, files []string) []string {
	var args []string
	inside := func(p string) bool {
		for _, b := range shown {
			if strictlyWithin(p, b) {
				return true
			}
		}
		return false
	}
	for _, d := range dirs {
		if inside(d) && isDirNoFollow(d) {
			args = append(args, "--tmpfs", d)
		}
	}
	for _, f := range files {
		if inside(f) && exists(f) {
			args = append(args, "--ro-bind", "/dev/null", f)
		}
	}
	return args
}

func isDirNoFollow(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.IsDir()
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

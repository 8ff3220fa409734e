package remote

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"

	"reasonixctl/core"
)

// ErrUnsafeSocket is the cause of every refusal to serve or dial a socket path that someone
// else could have put there: a symlink, a file that is not a socket, a socket or directory
// owned by another user, a directory others can enter.
var ErrUnsafeSocket = errors.New("unsafe owner socket")

// maxSocketPath is what fits in sockaddr_un.sun_path with its terminating NUL (Linux).
const maxSocketPath = 107

func unsafeSocket(path, format string, args ...any) *core.Error {
	return core.Errorf(core.CodeInternalError, map[string]any{"path": path},
		"%w: %s", ErrUnsafeSocket, fmt.Sprintf(format, args...))
}

// SocketPath is the owner's socket of the state directory dir.
func SocketPath(dir string) string { return filepath.Join(dir, SocketName) }

// checkDir refuses a state directory that another user owns or could enter: the socket's
// 0600 mode alone does not stop a process that can replace the file.
func checkDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return core.Errorf(core.CodeInternalError, nil, "state directory: %w", err)
	}
	if why := dirProblem(dir, fi); why != "" {
		return unsafeSocket(dir, "%s", why)
	}
	return nil
}

// dirProblem says why dir, described by fi, is no place for the owner's socket ("" if it is).
func dirProblem(dir string, fi os.FileInfo) string {
	if !fi.IsDir() {
		return fmt.Sprintf("%s is not a directory", dir)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Sprintf("cannot read the owner of %s", dir)
	}
	if int(st.Uid) != os.Getuid() {
		return fmt.Sprintf("state directory %s belongs to uid %d, not to us (uid %d)", dir, st.Uid, os.Getuid())
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return fmt.Sprintf("state directory %s has mode %04o; run chmod 700 %s", dir, fi.Mode().Perm(), dir)
	}
	return ""
}

// inspectSocket says whether path holds a socket of ours (true), nothing (false), or something
// that must not be touched (an error). It never follows a symlink.
func inspectSocket(path string) (bool, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, core.Errorf(core.CodeInternalError, nil, "owner socket: %w", err)
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return false, unsafeSocket(path, "%s is a symlink; refusing to follow it (remove it by hand)", path)
	case fi.Mode()&fs.ModeSocket == 0:
		return false, unsafeSocket(path, "%s exists and is not a socket (%s); remove it by hand", path, fi.Mode().Type())
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) != os.Getuid() {
		uid := -1
		if ok {
			uid = int(st.Uid)
		}
		return false, unsafeSocket(path, "socket %s belongs to uid %d, not to us (uid %d)", path, uid, os.Getuid())
	}
	return true, nil
}

// checkPeer refuses a peer that runs as another user. The socket's mode and directory already
// keep others out; this holds even if someone loosened them by hand.
func checkPeer(peerUID, ourUID int) error {
	if peerUID != ourUID {
		return fmt.Errorf("%w: peer uid %d is not ours (%d)", ErrUnsafeSocket, peerUID, ourUID)
	}
	return nil
}

// peerUID reads the connecting process's uid from the kernel (SO_PEERCRED).
func peerUID(c net.Conn) (int, error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return -1, fmt.Errorf("not a unix connection: %T", c)
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return -1, err
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return -1, err
	}
	if credErr != nil {
		return -1, credErr
	}
	return int(cred.Uid), nil
}

// peerListener closes every accepted connection whose peer is not our uid before anything is
// read from it.
type peerListener struct {
	net.Listener
	uid    int
	refuse func(err error) // reports a refused peer
	tune   func(net.Conn)  // adjusts an accepted connection (tests shrink its buffers)
}

func (l *peerListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		uid, err := peerUID(c)
		if err == nil {
			err = checkPeer(uid, l.uid)
		}
		if err == nil {
			if l.tune != nil {
				l.tune(c)
			}
			return c, nil
		}
		c.Close()
		if l.refuse != nil {
			l.refuse(err)
		}
	}
}

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
	"reasonixctl/core/statedir"
)

// ErrUnsafeSocket is the cause of every refusal to serve or dial a socket path that someone
// else could have put there: a symlink, a file that is not a socket, a socket or directory
// owned by another user, a directory others can enter.
var ErrUnsafeSocket = errors.New("unsafe owner socket")

// maxSocketPath is what fits in sockaddr_un.sun_path with its terminating NUL (Linux).
const maxSocketPath = 107

func unsafeSocket(path, format string, args ...any) *core.Error {
	return core.Errorf(core.CodeInternalError, &core.PathRef{Path: path},
		"%w: %s", ErrUnsafeSocket, fmt.Sprintf(format, args...))
}

// SocketPath is the owner's socket of the state directory dir.
func SocketPath(dir string) string { return filepath.Join(dir, SocketName) }

// checkDir refuses a state directory that another user owns or could enter: the socket's
// 0600 mode alone does not stop a process that can replace the file.
func checkDir(dir string) error {
	err := statedir.Check(dir)
	if errors.Is(err, statedir.ErrUnsafe) {
		return unsafeSocket(dir, "%s", err.Error())
	}
	if err != nil {
		return core.Errorf(core.CodeInternalError, nil, "%w", err)
	}
	return nil
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

// peerListener closes every accepted connection whose peer is not a front end of ours — another
// uid, or a process in another mount or pid namespace (a sandbox) — before anything is read from
// it.
type peerListener struct {
	net.Listener
	uid    int
	ns     namespaces      // the owner's
	refuse func(err error) // reports a refused peer
	tune   func(net.Conn)  // adjusts an accepted connection (tests shrink its buffers)
}

func (l *peerListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if err := l.admit(c); err != nil {
			c.Close()
			if l.refuse != nil {
				l.refuse(err)
			}
			continue
		}
		if l.tune != nil {
			l.tune(c)
		}
		return c, nil
	}
}

// admit says why the peer of c may not be served, or nil when it may.
func (l *peerListener) admit(c net.Conn) error {
	p, err := readPeer(c)
	defer p.close()
	if err != nil {
		return err
	}
	if err := checkPeer(p.uid, l.uid); err != nil {
		return err
	}
	return checkNamespaces(p, l.ns)
}

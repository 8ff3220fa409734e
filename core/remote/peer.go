package remote

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"

	"golang.org/x/sys/unix"

	"reasonixctl/sandbox/procstat"
)

// A front end (a dashboard, --mcp, a subcommand) runs beside the owner, in its mount and pid
// namespaces. A process in a sandbox does not: bubblewrap gives every sandbox a mount namespace
// of its own, and ours a pid namespace too. The uid cannot tell them apart — a sandboxed command
// runs as the same user — and a read-only bind of the state directory does not stop connect(),
// so the owner asks where the peer lives.

// peer is the process at the other end of an accepted connection, as the kernel recorded it
// when that process connected.
type peer struct {
	uid int
	// pid is in our pid namespace; 0 when the peer's is one we cannot see into.
	pid int
	// pidfd pins the process that connected, not its number; -1 where the kernel has no
	// SO_PEERPIDFD (before Linux 6.5).
	pidfd int
}

func (p peer) close() {
	if p.pidfd >= 0 {
		unix.Close(p.pidfd)
	}
}

// readPeer asks the kernel who connected (SO_PEERCRED, SO_PEERPIDFD). The caller closes it; the
// kernel makes the pidfd close-on-exec, so a worker started meanwhile does not inherit it.
func readPeer(c net.Conn) (peer, error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return peer{pidfd: -1}, fmt.Errorf("not a unix connection: %T", c)
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return peer{pidfd: -1}, err
	}
	p := peer{pidfd: -1}
	var credErr, pidfdErr error
	if err := raw.Control(func(fd uintptr) {
		var cred *unix.Ucred
		if cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED); credErr != nil {
			return
		}
		p.uid, p.pid = int(cred.Uid), int(cred.Pid)
		p.pidfd, pidfdErr = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_PEERPIDFD)
	}); err != nil {
		return peer{pidfd: -1}, err
	}
	if credErr != nil {
		return peer{pidfd: -1}, credErr
	}
	if pidfdErr != nil {
		p.pidfd = -1
		if !errors.Is(pidfdErr, unix.ENOPROTOOPT) {
			// The kernel knows the option but has no process to give: the peer is gone.
			return p, fmt.Errorf("%w: the peer (pid %d) cannot be identified: %v", ErrUnsafeSocket, p.pid, pidfdErr)
		}
	}
	return p, nil
}

// namespaces are the two a front end shares with the owner and a sandboxed process does not, as
// /proc names them ("mnt:[4026531841]").
type namespaces struct{ mnt, pid string }

// ownNamespaces are the owner's.
func ownNamespaces() (namespaces, error) { return readNamespaces("/proc/self") }

func readNamespaces(proc string) (namespaces, error) {
	mnt, err := os.Readlink(proc + "/ns/mnt")
	if err != nil {
		return namespaces{}, err
	}
	pid, err := os.Readlink(proc + "/ns/pid")
	if err != nil {
		return namespaces{}, err
	}
	return namespaces{mnt: mnt, pid: pid}, nil
}

// checkNamespaces refuses a peer that is not in our mount and pid namespaces.
func checkNamespaces(p peer, ours namespaces) error {
	theirs, err := peerNamespaces(p)
	if err != nil {
		return err
	}
	switch {
	case ours.mnt == "" || ours.pid == "":
		return fmt.Errorf("%w: the owner's own namespaces are unknown, so no peer can be told from a sandboxed process", ErrUnsafeSocket)
	case theirs.mnt != ours.mnt:
		return fmt.Errorf("%w: peer pid %d is in another mount namespace (%s, ours %s): a sandboxed process, not a front end", ErrUnsafeSocket, p.pid, theirs.mnt, ours.mnt)
	case theirs.pid != ours.pid:
		return fmt.Errorf("%w: peer pid %d is in another pid namespace (%s, ours %s): a sandboxed process, not a front end", ErrUnsafeSocket, p.pid, theirs.pid, ours.pid)
	}
	return nil
}

// peerNamespaces reads the namespaces of the process that connected from /proc/<pid>. That path
// names whichever process holds the number at the moment, and a peer that exits lets the number
// go to another, possibly one of ours; so the read counts only if the number still belonged to
// the peer after it (samePeer).
func peerNamespaces(p peer) (namespaces, error) {
	if p.pid <= 0 {
		return namespaces{}, fmt.Errorf("%w: the peer runs in a pid namespace we cannot see into (pid 0)", ErrUnsafeSocket)
	}
	proc := "/proc/" + strconv.Itoa(p.pid)
	var started string
	if p.pidfd < 0 {
		var err error
		if started, err = startTime(proc); err != nil {
			return namespaces{}, fmt.Errorf("%w: peer pid %d is gone: %v", ErrUnsafeSocket, p.pid, err)
		}
	}
	ns, err := readNamespaces(proc)
	if err != nil {
		return namespaces{}, fmt.Errorf("%w: cannot read the namespaces of peer pid %d: %v", ErrUnsafeSocket, p.pid, err)
	}
	if err := samePeer(p, proc, started); err != nil {
		return namespaces{}, err
	}
	return ns, nil
}

// samePeer says whether p's number still named p's process after its namespaces were read.
//
// With a pidfd it is exact: the pidfd holds the very process that connected, whose number is
// given to another only once it has exited and been reaped, so a process that is still there
// (alive or a zombie not yet reaped; signal 0 reaches both) held the number throughout, and from
// before we read. Without one (kernels before 6.5) the start time read before is compared: a
// number reused during the read would carry the same start time only if the whole pid range
// wrapped around within one clock tick; a number reused between connect() and our accept is
// not seen, which would need the range to wrap while the connection waits in the accept queue.
func samePeer(p peer, proc, started string) error {
	if p.pidfd >= 0 {
		err := unix.PidfdSendSignal(p.pidfd, 0, nil, 0)
		if err != nil && !errors.Is(err, unix.EPERM) {
			return fmt.Errorf("%w: peer pid %d exited while it was being checked (%v); its number may name another process now", ErrUnsafeSocket, p.pid, err)
		}
		return nil
	}
	now, err := startTime(proc)
	if err != nil || now != started {
		return fmt.Errorf("%w: peer pid %d exited while it was being checked; its number may name another process now", ErrUnsafeSocket, p.pid)
	}
	return nil
}

// startTime is when the process whose /proc folder is proc started.
func startTime(proc string) (string, error) {
	if t := procstat.StartTimeAt(proc); t != "" {
		return t, nil
	}
	return "", fmt.Errorf("%s/stat cannot be read", proc)
}

package gitx

import (
	"os"
	"strconv"
	"syscall"
	"time"
)

var syscallENOTDIR = syscall.ENOTDIR

// statKey is the identity and shape of a file (device, inode, mode, size) and its mtime and ctime.
func statKey(fi os.FileInfo) (key string, mtime, ctime time.Time, ok bool) {
	s, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "", time.Time{}, time.Time{}, false
	}
	key = strconv.FormatUint(uint64(s.Dev), 10) + " " + strconv.FormatUint(s.Ino, 10) + " " +
		strconv.FormatUint(uint64(s.Mode), 8) + " " + strconv.FormatInt(s.Size, 10)
	return key, time.Unix(s.Mtim.Unix()), time.Unix(s.Ctim.Unix()), true
}

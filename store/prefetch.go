package store

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// tableTail is how much of a table's end prefetchTables asks for: its index and bloom filter
// grow with the table (about 1.6% of it with 4 KiB blocks), and its last block is 4 KiB.
func tableTail(size int64) int64 {
	return min(size, size/32+32<<10)
}

// prefetchTables asks the kernel to read the end of every table in dir before badger opens
// them. Badger reads those ends three tables at a time, each a page fault that waits on the
// disk; asking for all of them at once lets the disk serve them together, which is most of the
// time of a first open after the page cache lost them (a reboot, a day of other work).
// It is only advice: any error is ignored and badger reads what is missing itself.
func prefetchTables(dir string) {
	tables, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
	for _, name := range tables {
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		if fi, err := f.Stat(); err == nil {
			n := tableTail(fi.Size())
			_ = unix.Fadvise(int(f.Fd()), fi.Size()-n, n, unix.FADV_WILLNEED)
		}
		f.Close()
	}
}

package contract

import (
	"fmt"
	"io"
	"os"
)

// MaxFileBytes bounds a contract read from a file or stdin. Every field is bounded, so a valid
// contract is far smaller; the bound keeps a mistyped path (a log, a disk image) from being
// read whole.
const MaxFileBytes = 16 << 20

// ReadFile reads a contract file, "-" meaning standard input, refusing one over MaxFileBytes
// and anything that is not a regular file or a stream.
func ReadFile(path string) ([]byte, error) {
	var r io.Reader = os.Stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return nil, err
		}
		if fi.IsDir() {
			return nil, fmt.Errorf("%s is a directory, not a contract file", path)
		}
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("%s is over %d MiB: not a contract", path, MaxFileBytes>>20)
	}
	return data, nil
}

//go:build !linux

package gitx

import (
	"errors"
	"os"
	"time"
)

var syscallENOTDIR = errors.New("unused")

// statKey is Linux only: elsewhere every scan runs git.
func statKey(os.FileInfo) (string, time.Time, time.Time, bool) {
	return "", time.Time{}, time.Time{}, false
}

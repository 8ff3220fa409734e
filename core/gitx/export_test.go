package gitx

import "time"

// SetStampMargins lets a test treat entries as settled without waiting for the clock.
func SetStampMargins(fine, coarse time.Duration) (restore func()) {
	f, c := racyMargin, racyMarginCoarse
	racyMargin, racyMarginCoarse = fine, coarse
	return func() { racyMargin, racyMarginCoarse = f, c }
}

// PlainIndex exposes plainIndex to the tests.
var PlainIndex = plainIndex

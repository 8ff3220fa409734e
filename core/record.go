package core

import (
	"time"
)

const timeLayout = "2006-01-02T15:04:05.000Z07:00"

// FormatTime is how records and events write a time: UTC, to the millisecond.
func FormatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

// Package procstat reads /proc/PID/stat, for the process ledger, the worker's freeze and the
// owner socket's peer check: one reading of a line whose command name may hold spaces and
// parentheses of its own.
package procstat

import (
	"bytes"
	"os"
	"strconv"
)

// Field indexes into Fields: the line's fields from the third (the state) on.
const (
	State = 3 - 3
	PPID  = 4 - 3
	PGRP  = 5 - 3
	Flags = 9 - 3
	Start = 22 - 3 // start time in clock ticks since boot
)

// Parse splits a stat line into the command name and the fields after it, which start after the
// last ')'. ok is false for a line without enough fields.
func Parse(b []byte) (comm string, fields [][]byte, ok bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return "", nil, false
	}
	if j := bytes.IndexByte(b, '('); j >= 0 && j < i {
		comm = string(b[j+1 : i])
	}
	fields = bytes.Fields(b[i+1:])
	return comm, fields, len(fields) > Start && len(fields[State]) > 0
}

// Read parses the stat file at path (/proc/PID/stat, or a thread's /proc/PID/task/TID/stat).
func Read(path string) (comm string, fields [][]byte, ok bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", nil, false
	}
	return Parse(b)
}

// StartTime is when the process pid started, or "" when there is no such process.
func StartTime(pid int) string {
	return StartTimeAt("/proc/" + strconv.Itoa(pid))
}

// StartTimeAt is StartTime of the process whose /proc folder is dir.
func StartTimeAt(dir string) string {
	_, fields, ok := Read(dir + "/stat")
	if !ok {
		return ""
	}
	return string(fields[Start])
}

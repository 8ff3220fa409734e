package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"reasonixctl/core"
)

// runDoctor is `reasonixctl doctor [--json]`: exit 1 when any check fails.
func runDoctor(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		return 2
	}
	dir, err := stateDir()
	if err != nil {
		fmt.Fprintln(stderr, "reasonixctl:", err)
		return 1
	}
	checks := core.Doctor(context.Background(), core.DoctorOptions{WorkerBin: os.Getenv("REASONIX_BIN"), StateDir: dir})
	ok := true
	for _, c := range checks {
		ok = ok && c.Status != core.CheckFail
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(map[string]any{"ok": ok, "checks": checks})
	} else {
		for _, c := range checks {
			fmt.Fprintf(stdout, "%-4s  %-17s %s\n", c.Status, c.Name, c.Detail)
		}
	}
	if !ok {
		return 1
	}
	return 0
}

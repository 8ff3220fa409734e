package main

import (
	"fmt"
	"io"
)

func runPolicy(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "reasonixctl policy: not built yet")
	return 2
}

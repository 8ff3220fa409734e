package main

import (
	"fmt"
	"io"
)

func runContract(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "reasonixctl contract: not built yet")
	return 2
}

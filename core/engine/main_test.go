package engine

import (
	"os"
	"testing"

	"reasonixctl/sandbox"
)

// The test binary is the worker sandbox's forwarder, as reasonixctl is (sandbox.ForwardMain).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.ForwardCommand {
		os.Exit(sandbox.ForwardMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}

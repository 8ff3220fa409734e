package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"testing"

	"reasonixctl/acp"
	"reasonixctl/core"
	"reasonixctl/store"
)

// Close waits for background work that already started, which still finds the store open, and
// refuses work that would start after it began.
func TestCloseWaitsForBackgroundWorkAndRefusesLaterWork(t *testing.T) {
	h := newHarness(t, nil)
	release := make(chan struct{})
	appended := make(chan error, 1)
	if !h.e.spawn(func() {
		<-release
		_, err := h.e.store.Append("bg", store.NewEvent{Type: "probe"})
		appended <- err
	}) {
		t.Fatal("spawn refused work before Close")
	}
	closed := make(chan error, 1)
	go func() { closed <- h.e.Close() }()
	<-h.e.closing
	if h.e.spawn(func() { t.Error("work ran after Close began") }) {
		t.Fatal("spawn accepted work after Close began")
	}
	if h.e.enterBG() {
		t.Fatal("a callback joined the wait group after Close began")
	}
	close(release)
	if err := <-appended; err != nil {
		t.Fatalf("background work found the store closed: %v", err)
	}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	if _, err := h.e.store.Append("bg", store.NewEvent{Type: "late"}); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("append after Close: %v", err)
	}
}

func TestErrorUnwrapsToItsCause(t *testing.T) {
	_, statErr := os.Stat("/no/such/path/for/reasonixctl")
	ce := core.Errorf(core.CodeInternalError, nil, "state directory: %w", statErr)
	if !errors.Is(ce, fs.ErrNotExist) {
		t.Fatalf("errors.Is through %v failed", ce)
	}
	var pe *fs.PathError
	if !errors.As(ce, &pe) || pe.Path != "/no/such/path/for/reasonixctl" {
		t.Fatalf("errors.As found %v", pe)
	}
	if ce.Message != "state directory: "+statErr.Error() {
		t.Fatalf("message %q", ce.Message)
	}

	// Several %w keep every cause reachable; %v keeps none.
	sentinel := errors.New("sentinel")
	both := core.Errorf(core.CodeCommitFailed, nil, "%w and %w", sentinel, statErr)
	if !errors.Is(both, sentinel) || !errors.Is(both, fs.ErrNotExist) {
		t.Fatalf("causes lost: %v", both)
	}
	if plain := core.Errorf(core.CodeCommitFailed, nil, "%v", sentinel); plain.Cause != nil || errors.Is(plain, sentinel) {
		t.Fatalf("%%v made a cause: %v", plain.Cause)
	}

	// AsError keeps a foreign error as the cause of its internal_error, and returns an Error
	// found anywhere in the chain as it is.
	wrapped := core.AsError(fmt.Errorf("opening: %w", statErr))
	if wrapped.Code != core.CodeInternalError || !errors.Is(wrapped, fs.ErrNotExist) {
		t.Fatalf("AsError: %+v", wrapped)
	}
	if got := core.AsError(fmt.Errorf("outer: %w", ce)); got != ce {
		t.Fatalf("AsError rebuilt a core error: %+v", got)
	}

	// The cause never reaches the wire.
	b, _ := json.Marshal(ce)
	var fields map[string]any
	if err := json.Unmarshal(b, &fields); err != nil || len(fields) != 4 {
		t.Fatalf("encoded as %s", b)
	}
}

// A worker that cannot start reports reasonix_unavailable whose cause is the launcher's error.
func TestWorkerErrorKeepsTheLaunchCause(t *testing.T) {
	h := newHarness(t, nil, func(c *Config) {
		c.Worker = func(ctx context.Context, _ WorkerSpec) (*acp.Worker, error) {
			return nil, fmt.Errorf("%w: no such binary", acp.ErrUnavailable)
		}
	})
	_, err := h.delegate("cause")
	ce := mustCode(t, err, core.CodeReasonixUnavailable)
	if !errors.Is(err, acp.ErrUnavailable) || !errors.Is(ce, acp.ErrUnavailable) {
		t.Fatalf("cause lost: %v", err)
	}
}

package store

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
)

// Options configure Open.
type Options struct {
	// Dir is the state directory. It is created 0700 if missing; badger lives in Dir/badger.
	Dir string
	// Mode names what the owning process is doing ("tui", "mcp", "demo", ...). It is written to
	// owner.json so that a second process can say who holds the directory.
	Mode string
	// Logger receives badger's messages and the store's own; nil discards them.
	Logger *slog.Logger
	// SubscriberBuffer bounds the live events queued per subscription; 0 means 1024.
	SubscriberBuffer int
	// GCInterval is the period of value-log garbage collection; 0 means 10 minutes.
	GCInterval time.Duration

	// noSync makes Update skip its sync; tests that do not test durability use it for speed.
	noSync bool
}

const (
	defaultSubscriberBuffer = 1024
	defaultGCInterval       = 10 * time.Minute
	// memTableSize bounds each memtable arena (and its WAL, mapped at twice this size). Values
	// above valueThreshold go to the value log instead; it must stay below 15% of memTableSize.
	memTableSize   = 2 << 20
	valueThreshold = 32 << 10
	vlogFileSize   = 8 << 20
	gcDiscardRatio = 0.5
)

// badgerOptions sizes badger for a 2-core machine with little memory: two small memtables, no
// block cache (nothing is compressed or encrypted, so badger reads blocks straight from the
// mapped tables), small tables and value-log files, and the minimum two compactors.
func badgerOptions(dir string, sync bool, log *slog.Logger) badger.Options {
	return badger.DefaultOptions(dir).
		WithLogger(slogAdapter{log}).
		WithSyncWrites(sync).
		WithMetricsEnabled(false).
		WithNumGoroutines(2).
		WithNumCompactors(2).
		WithMemTableSize(memTableSize).
		WithNumMemtables(2).
		WithNumLevelZeroTables(2).
		WithNumLevelZeroTablesStall(8).
		WithBaseTableSize(1 << 20).
		WithBaseLevelSize(4 << 20).
		WithValueThreshold(valueThreshold).
		WithValueLogFileSize(vlogFileSize).
		WithCompression(options.None).
		WithBlockCacheSize(0).
		WithIndexCacheSize(0)
}

func (o Options) withDefaults() (Options, error) {
	if o.Dir == "" {
		return o, fmt.Errorf("%w: Options.Dir is empty", ErrInvalidArgument)
	}
	abs, err := filepath.Abs(o.Dir)
	if err != nil {
		return o, fmt.Errorf("%w: Options.Dir %q: %v", ErrInvalidArgument, o.Dir, err)
	}
	o.Dir = abs
	if o.Mode == "" || strings.ContainsAny(o.Mode, "\n\r") {
		return o, fmt.Errorf("%w: Options.Mode %q must be a non-empty single line", ErrInvalidArgument, o.Mode)
	}
	if o.SubscriberBuffer < 0 || o.GCInterval < 0 {
		return o, fmt.Errorf("%w: Options.SubscriberBuffer and Options.GCInterval must not be negative", ErrInvalidArgument)
	}
	if o.SubscriberBuffer == 0 {
		o.SubscriberBuffer = defaultSubscriberBuffer
	}
	if o.GCInterval == 0 {
		o.GCInterval = defaultGCInterval
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o, nil
}

// slogAdapter routes badger's printf-style logging to slog; badger must never reach stderr.
type slogAdapter struct{ l *slog.Logger }

func (a slogAdapter) Errorf(f string, v ...any)   { a.log(slog.LevelError, f, v) }
func (a slogAdapter) Warningf(f string, v ...any) { a.log(slog.LevelWarn, f, v) }
func (a slogAdapter) Infof(f string, v ...any)    { a.log(slog.LevelInfo, f, v) }
func (a slogAdapter) Debugf(f string, v ...any)   { a.log(slog.LevelDebug, f, v) }

func (a slogAdapter) log(level slog.Level, f string, v []any) {
	ctx := context.Background()
	if !a.l.Enabled(ctx, level) {
		return
	}
	a.l.Log(ctx, level, strings.TrimRight(fmt.Sprintf(f, v...), "\n"), "component", "badger")
}

package safetext

import (
	"context"
	"fmt"
	"log/slog"
)

// NewLogHandler wraps a log handler so that every message, key and value it is given passes
// through Line first: a log file holds the worker's words (its stderr, its errors, the
// commands it asked for), and a person reads it with cat, less or tail -f, which obey escape
// sequences and line separators like any terminal.
func NewLogHandler(inner slog.Handler) slog.Handler { return logHandler{inner} }

type logHandler struct{ inner slog.Handler }

func (h logHandler) Enabled(ctx context.Context, l slog.Level) bool { return h.inner.Enabled(ctx, l) }

func (h logHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, Line(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(cleanAttr(a))
		return true
	})
	return h.inner.Handle(ctx, out)
}

func (h logHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return logHandler{h.inner.WithAttrs(cleanAttrs(attrs))}
}

func (h logHandler) WithGroup(name string) slog.Handler {
	return logHandler{h.inner.WithGroup(Line(name))}
}

func cleanAttrs(attrs []slog.Attr) []slog.Attr {
	out := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		out[i] = cleanAttr(a)
	}
	return out
}

// cleanAttr makes one attribute inert text: strings, errors, Stringers and any other value
// that prints as text; numbers, booleans, times and durations print as themselves.
func cleanAttr(a slog.Attr) slog.Attr {
	a.Key = Line(a.Key)
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		a.Value = slog.StringValue(Line(v.String()))
	case slog.KindGroup:
		a.Value = slog.GroupValue(cleanAttrs(v.Group())...)
	case slog.KindAny:
		a.Value = slog.StringValue(Line(fmt.Sprint(v.Any())))
	default:
		a.Value = v
	}
	return a
}

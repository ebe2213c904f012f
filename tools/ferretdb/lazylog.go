package main

import (
	"context"
	"log/slog"
)

// lazyHandler defers WithAttrs until a record is actually handled. FerretDB calls
// Logger.With(<the statement's arguments>) before every SQL statement only to log it at debug
// level, and slog's text handler formats those attributes (whole documents) eagerly, even when
// debug is off: about 7% of the server's CPU under a write load.
type lazyHandler struct {
	inner   slog.Handler
	pending []slog.Attr
}

func newLazyHandler(inner slog.Handler) slog.Handler { return &lazyHandler{inner: inner} }

func (h *lazyHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.inner.Enabled(ctx, level)
}

func (h *lazyHandler) materialized() slog.Handler {
	if len(h.pending) == 0 {
		return h.inner
	}
	return h.inner.WithAttrs(h.pending)
}

func (h *lazyHandler) Handle(ctx context.Context, r slog.Record) error {
	return h.materialized().Handle(ctx, r)
}

func (h *lazyHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	if len(attrs) == 0 {
		return h
	}
	pending := make([]slog.Attr, 0, len(h.pending)+len(attrs))
	pending = append(append(pending, h.pending...), attrs...)
	return &lazyHandler{inner: h.inner, pending: pending}
}

func (h *lazyHandler) WithGroup(name string) slog.Handler {
	// Attributes added before the group stay outside it.
	return &lazyHandler{inner: h.materialized().WithGroup(name)}
}

package main

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestLazyHandlerWritesWhatTheTextHandlerWrites(t *testing.T) {
	var lazy, eager bytes.Buffer
	opts := &slog.HandlerOptions{Level: slog.LevelInfo, ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}
	for _, c := range []struct {
		buf *bytes.Buffer
		h   slog.Handler
	}{{&lazy, newLazyHandler(slog.NewTextHandler(&lazy, opts))}, {&eager, slog.NewTextHandler(&eager, opts)}} {
		l := slog.New(c.h).With("a", 1).With("b", "two")
		l.Debug("dropped", "c", 3)
		l.WithGroup("g").With("d", 4).Info("kept", "e", 5)
		l.Warn("plain")
	}
	if lazy.String() != eager.String() {
		t.Fatalf("lazy handler wrote\n%s\ntext handler wrote\n%s", lazy.String(), eager.String())
	}
	if strings.Contains(lazy.String(), "dropped") || !strings.Contains(lazy.String(), "g.d=4") {
		t.Fatalf("unexpected output:\n%s", lazy.String())
	}
}

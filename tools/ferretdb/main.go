// Command ferretdb runs FerretDB 1.x (a MongoDB wire-protocol server) over its SQLite backend,
// for local development and tests on machines without mongod or a Docker engine.
//
// It embeds github.com/FerretDB/FerretDB/ferretdb rather than installing cmd/ferretdb, whose main
// package panics at start when built from the module proxy (it needs a generated version file).
// scripts/bootstrap.sh builds it from a copy of FerretDB's verified module without two files this
// launcher never runs (the OTLP trace exporter of FerretDB's own command and the MySQL backend's
// registration): `go build` and `go test` here without that copy build the same code with them.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	_ "net/http/pprof" // served only with -debug-addr
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"

	"commodity-data-service/tools/ferretdb/idindex"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:27017", "TCP address to listen on")
	dataDir := flag.String("data", "", "folder for the SQLite databases (required)")
	logLevel := flag.String("log-level", "warn", "log level: debug, info, warn, error")
	// WAL (FerretDB's default journal mode) with synchronous=NORMAL syncs at checkpoints instead of
	// every commit: no corruption, at worst the last commits lost on power failure. The read models
	// it holds are rebuilt from the event streams, so local runs and tests trade that for speed.
	idIndexes := flag.Bool("id-indexes", true, "index the expression FerretDB's _id lookups compare (see idindex.go)")
	synchronous := flag.String("sqlite-synchronous", "normal", "SQLite synchronous pragma: off, normal, full, extra")
	debugAddr := flag.String("debug-addr", "", "serve Go's pprof profiles on this address (e.g. 127.0.0.1:6060); off when empty")
	// Go's default (100) collected often enough to take about 11 % of the server's CPU under the
	// projection bench's load: each replace decodes and re-encodes whole documents, a heap of
	// short-lived values. 400 lets the heap grow to five times what is live between collections.
	gcPercent := flag.Int("gc-percent", 400, "the garbage collector's target percentage (as GOGC; GOGC in the environment wins)")
	flag.Parse()
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(*gcPercent)
	}

	if *dataDir == "" {
		fmt.Fprintln(os.Stderr, "ferretdb: -data is required")
		os.Exit(2)
	}
	abs, err := filepath.Abs(*dataDir)
	if err == nil {
		err = os.MkdirAll(abs, 0o755)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "ferretdb: data folder:", err)
		os.Exit(1)
	}

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fmt.Fprintln(os.Stderr, "ferretdb: -log-level:", err)
		os.Exit(2)
	}
	logger := slog.New(newLazyHandler(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})))
	slog.SetDefault(logger)

	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{TCP: *listen},
		Logger:    logger,
		Handler:   "sqlite",
		SQLiteURL: "file:" + abs + "/?_pragma=synchronous(" + *synchronous + ")",
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "ferretdb:", err)
		os.Exit(1)
	}

	if *debugAddr != "" {
		go func() {
			// net/http/pprof registers its handlers on the default mux.
			if err := http.ListenAndServe(*debugAddr, nil); err != nil {
				fmt.Fprintln(os.Stderr, "ferretdb: -debug-addr:", err)
			}
		}()
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *idIndexes {
		go idindex.Keep(ctx, abs, 250*time.Millisecond)
	}
	fmt.Fprintf(os.Stderr, "ferretdb: listening on %s, data in %s\n", *listen, abs)
	if err := f.Run(ctx); err != nil && ctx.Err() == nil {
		fmt.Fprintln(os.Stderr, "ferretdb:", err)
		os.Exit(1)
	}
}

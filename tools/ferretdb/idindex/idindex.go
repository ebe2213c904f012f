// Package idindex keeps an index on the expression FerretDB's _id lookups compare, in every
// collection table of the SQLite files of a data folder.
//
// It is a package of its own, imported first by the launcher (its path sorts before the standard
// library's), so that `go build` schedules the SQLite driver, the largest and longest chain of packages
// to compile (modernc.org/libc, then modernc.org/sqlite/lib), before the rest: cmd/go runs ready
// packages in the order of a depth-first walk of the imports (scripts/bootstrap.sh builds it).
package idindex

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // the SQLite driver FerretDB itself uses
)

// idExpression is the exact expression FerretDB 1.24's SQLite backend compares when it pushes an
// {_id: <string>} filter down (metadata.IDColumn). FerretDB's own unique _id index is built on
// `_ferretdb_sjson->"_id"`, a different expression, so SQLite cannot use it and scans the table,
// parsing every document's JSON. An index on the same expression turns that into a lookup.
const idExpression = `_ferretdb_sjson->'$._id'`

// Keep adds an index on idExpression to every collection table of every database file
// in dir, and keeps doing so for new collections until ctx ends. FerretDB does not know these
// indexes (they are not in its metadata); dropping a collection drops its table and the index.
func Keep(ctx context.Context, dir string, every time.Duration) {
	ticker := time.NewTicker(every)
	defer ticker.Stop()
	for {
		files, _ := filepath.Glob(filepath.Join(dir, "*.sqlite"))
		for _, f := range files {
			if err := ensureIDIndexes(ctx, f); err != nil && ctx.Err() == nil {
				slog.Debug("ferretdb: _id index pass", "file", f, "error", err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

func ensureIDIndexes(ctx context.Context, file string) error {
	db, err := sql.Open("sqlite", "file:"+file+"?_pragma=busy_timeout(5000)")
	if err != nil {
		return err
	}
	defer db.Close()

	existing := map[string]bool{}
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'index'`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return err
		}
		existing[name] = true
	}
	rows.Close()

	rows, err = db.QueryContext(ctx, `SELECT table_name FROM "_ferretdb_collections"`)
	if err != nil {
		return err // a database without collections yet has no metadata table
	}
	var tables []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return err
		}
		tables = append(tables, t)
	}
	rows.Close()

	for _, t := range tables {
		index := t + "_cds_id_lookup"
		if existing[index] {
			continue
		}
		q := fmt.Sprintf(`CREATE INDEX IF NOT EXISTS %q ON %q (%s)`, index, t, idExpression)
		if _, err := db.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

package cexport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/crawlutils/crawlutils/internal/ndjson"
	"github.com/crawlutils/crawlutils/internal/record"
)

// A table sink writes items as rows of a database table (see dburi.go for
// how -o names it). The table is created from the first item's fields, or
// an existing one is used. Each item is one row: its fields are columns
// (a field the table lacks is added with --alter, else the item is
// rejected), and a column the item lacks keeps its default (on insert) or
// its value (on an upsert's update). With --key, writes are upserts on the
// key fields, which get a unique index.
//
// Rows are kept in a batch and written in one transaction when it is full,
// when the input stalls (Flush) and when the passer commits (Commit): an
// ack is passed on only once the transaction holding the items before it
// has committed. A row the database rejects (a constraint, a value the
// column's type does not take) is reported with its input line and
// dropped, and the rest of its batch is written.

// Batch bounds: a batch is written once it holds this many rows or bytes of
// values, whichever comes first.
const (
	batchRows  = 5000
	batchBytes = 8 << 20
)

// dbDriver is one database's part of a table sink. Its methods are called
// from one goroutine, outside any transaction of its own but write's.
type dbDriver interface {
	// columns returns the table's columns, or nil when it does not exist.
	columns(ctx context.Context) ([]column, error)
	// create creates the table with cols (unless another process did; the
	// caller reads its columns again).
	create(ctx context.Context, cols []column) error
	// addColumn adds c to the table (nothing if it is there already).
	addColumn(ctx context.Context, c column) error
	// ensureKey makes sure a unique index on exactly the key columns exists.
	ensureKey(ctx context.Context, key []string) error
	// empty deletes every row (-O).
	empty(ctx context.Context) error
	// write writes rows in one transaction and commits it. A row the
	// database rejects is passed to reject and left out; any other error
	// is returned, and then nothing of rows was committed.
	write(ctx context.Context, t *table, key []string, rows []row, reject func(r *row, err error)) error
	// typeName is the SQL type of a new column of type t.
	typeName(t colType) string
	// columnRules are the database's rules for column names.
	columnRules() columnRules
	// transient reports whether an error of write means the database could
	// not be reached (try again later), not that the data or schema is
	// wrong; reconnect makes a new connection when the old one broke.
	transient(err error) bool
	reconnect(ctx context.Context) error
	close() error
}

// tableSink is the exporter of a database output.
type tableSink struct {
	ctx    context.Context
	drv    dbDriver
	target *dbTarget
	key    []string
	alter  bool
	// reject reports an item that is not written.
	reject func(line ndjson.Line, err error)
	// retry is how long a database that went away is waited for
	// (--db-retry); warn reports it.
	retry time.Duration
	warn  func(format string, a ...any)

	tbl   *table // nil until the table exists
	batch []row
	// inflight, when not nil, gets the result of the full batch being
	// written in the background (written), while the next one fills.
	inflight   chan error
	written    []row
	bytes      int
	lastCommit time.Time
	closed     bool
}

// openTableSink connects to the database of o and checks its table. ctx
// bounds every database call (it must outlive an interrupt, so that the
// last batch is still written).
func openTableSink(ctx context.Context, o *Options, reject func(ndjson.Line, error), warn func(string, ...any)) (*tableSink, error) {
	t := o.db
	var drv dbDriver
	var err error
	switch t.driver {
	case driverSQLite:
		drv, err = openSQLiteDriver(ctx, t)
	default:
		drv, err = openPostgresDriver(ctx, t)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.display, err)
	}
	s := &tableSink{ctx: ctx, drv: drv, target: t, key: o.Key, alter: o.Alter, reject: reject, retry: o.DBRetry, warn: warn}
	if err := s.init(o.Overwrite); err != nil {
		drv.close()
		return nil, fmt.Errorf("%s: %w", t.display, err)
	}
	return s, nil
}

func (s *tableSink) init(overwrite bool) error {
	cols, err := s.drv.columns(s.ctx)
	if err != nil || cols == nil {
		return err
	}
	s.tbl = newTable(cols)
	if overwrite {
		if err := s.drv.empty(s.ctx); err != nil {
			return fmt.Errorf("empty table %s (-O): %w", s.target.table, err)
		}
	}
	return s.checkKey()
}

// checkKey makes sure the key fields are columns with a unique index.
func (s *tableSink) checkKey() error {
	if len(s.key) == 0 {
		return nil
	}
	for _, k := range s.key {
		if _, ok := s.tbl.index[k]; !ok {
			return fmt.Errorf("--key %s: table %s has no column %q", joinNames(s.key), s.target.table, k)
		}
	}
	if err := s.drv.ensureKey(s.ctx, s.key); err != nil {
		return fmt.Errorf("--key %s: cannot make it a unique key of table %s (do rows share a key?): %w", joinNames(s.key), s.target.table, err)
	}
	return nil
}

func (s *tableSink) Begin() error { return nil }

// Write writes an item read from nowhere in particular (the exporter
// interface); the session calls WriteLine.
func (s *tableSink) Write(fields []record.Field) error {
	return s.WriteLine(ndjson.Line{Source: "<input>"}, fields)
}

// WriteLine adds the item read at line to the batch, creating the table or
// adding columns first when needed. An item that cannot be a row is
// rejected (reported, and nil returned); an error is a database failure.
func (s *tableSink) WriteLine(line ndjson.Line, fields []record.Field) error {
	line.Bytes = nil
	if err := s.check(fields); err != nil {
		s.reject(line, err)
		return nil
	}
	if err := s.drv.columnRules().checkNames(fields, s.tbl); err != nil {
		s.reject(line, err)
		return nil
	}
	if s.tbl == nil {
		if err := s.createTable(fields); err != nil {
			return err
		}
	}
	var missing []record.Field
	for _, f := range fields {
		if _, ok := s.tbl.index[f.Key]; !ok {
			missing = append(missing, f)
		}
	}
	if len(missing) > 0 {
		if err := s.wait(); err != nil { // the table changes under a write
			return err
		}
		if !s.alter {
			s.reject(line, fmt.Errorf("field %q is not a column of table %s (--alter adds it; --fields chooses the fields)", missing[0].Key, s.target.table))
			return nil
		}
		for _, f := range missing {
			if err := s.addColumn(f); err != nil {
				if !schemaRefusal(err) {
					return err
				}
				// The database refuses this field as a column: the item
				// is rejected, the batch and the export go on.
				s.reject(line, err)
				return nil
			}
		}
	}
	r := row{line: line, cols: make([]int, len(fields)), vals: make([]json.RawMessage, len(fields))}
	for i, f := range fields {
		r.cols[i] = s.tbl.index[f.Key]
		r.vals[i] = slices.Clone(f.Value)
		s.bytes += len(f.Value)
	}
	s.batch = append(s.batch, r)
	if len(s.batch) >= batchRows || s.bytes >= batchBytes {
		return s.writeBehind()
	}
	return nil
}

// writeBehind writes the full batch in the background, in its own
// transaction, while the next batch fills: cexport reads and converts
// items while the database writes (the server, or SQLite in the other
// goroutine). One batch at most is in flight; its error comes back at the
// next wait. Nothing is acknowledged meanwhile: Commit waits for it.
func (s *tableSink) writeBehind() error {
	if err := s.wait(); err != nil {
		return err
	}
	batch := s.batch
	s.batch, s.written = s.written[:0], batch
	s.bytes = 0
	s.lastCommit = time.Now()
	ch := make(chan error, 1)
	s.inflight = ch
	go func() { ch <- s.write(batch) }()
	return nil
}

// wait waits for the batch written in the background, if any.
func (s *tableSink) wait() error {
	if s.inflight == nil {
		return nil
	}
	err := <-s.inflight
	s.inflight = nil
	clear(s.written)
	s.written = s.written[:0]
	return err
}

// write writes rows in one transaction, retrying while the database is
// away (--db-retry).
func (s *tableSink) write(rows []row) error {
	if err := s.writeRetrying(rows); err != nil {
		return fmt.Errorf("%s: write to table %s: %w", s.target.display, s.target.table, err)
	}
	return nil
}

// check says why an item cannot be a row, or nil.
func (s *tableSink) check(fields []record.Field) error {
	if len(fields) == 0 {
		return errors.New("item has no fields: nothing to write as a row")
	}
	for _, k := range s.key {
		i := slices.IndexFunc(fields, func(f record.Field) bool { return f.Key == k })
		if i < 0 || fields[i].Value[0] == 'n' {
			return fmt.Errorf("key field %q (--key) is missing or null", k)
		}
	}
	for _, f := range fields {
		if err := checkIdent("column", f.Key); err != nil {
			return fmt.Errorf("field %q cannot be a column: %v", f.Key, err)
		}
	}
	return nil
}

// createTable creates the table with a column for each field, its type
// inferred from the field's value.
func (s *tableSink) createTable(fields []record.Field) error {
	cols := make([]column, len(fields))
	for i, f := range fields {
		t := inferType(f.Value)
		cols[i] = column{name: f.Key, typ: t, decl: s.drv.typeName(t)}
	}
	if err := s.drv.create(s.ctx, cols); err != nil {
		return fmt.Errorf("%s: create table %s: %w", s.target.display, s.target.table, err)
	}
	got, err := s.drv.columns(s.ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", s.target.display, err)
	}
	s.tbl = newTable(got)
	if err := s.checkKey(); err != nil {
		return fmt.Errorf("%s: %w", s.target.display, err)
	}
	return nil
}

// addColumn adds a column for f (--alter), its type inferred from f's value.
func (s *tableSink) addColumn(f record.Field) error {
	t := inferType(f.Value)
	c := column{name: f.Key, typ: t, decl: s.drv.typeName(t)}
	if err := s.drv.addColumn(s.ctx, c); err != nil {
		return fmt.Errorf("%s: add column %q to table %s (--alter): %w", s.target.display, f.Key, s.target.table, err)
	}
	got, err := s.drv.columns(s.ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", s.target.display, err)
	}
	// Keep the indexes the batch's rows use: columns only ever come after.
	for _, c := range got[len(s.tbl.cols):] {
		s.tbl.add(c)
	}
	if _, ok := s.tbl.index[f.Key]; !ok {
		return fmt.Errorf("%s: column %q was added to table %s but is not there", s.target.display, f.Key, s.target.table)
	}
	return nil
}

// Commit writes the batch in one transaction: once it returns nil, every
// item written so far (but those rejected) is in the table.
func (s *tableSink) Commit() error {
	if err := s.wait(); err != nil {
		return err
	}
	if len(s.batch) == 0 {
		return nil
	}
	s.lastCommit = time.Now()
	if err := s.write(s.batch); err != nil {
		return err
	}
	clear(s.batch)
	s.batch = s.batch[:0]
	s.bytes = 0
	return nil
}

// Flush commits when the input stalls, so readers of the table see the
// items; commits come at most every commitPace (see passer).
func (s *tableSink) Flush() error {
	if len(s.batch) == 0 && s.inflight == nil {
		return nil
	}
	if d := commitPace - time.Since(s.lastCommit); d > 0 {
		time.Sleep(d)
	}
	return s.Commit()
}

// End commits the last batch and closes the database.
func (s *tableSink) End() error {
	err := s.Commit()
	if cerr := s.Abort(); err == nil {
		err = cerr
	}
	return err
}

// Abort closes the database without writing the batch.
func (s *tableSink) Abort() error {
	if s.closed {
		return nil
	}
	s.closed = true
	s.wait() // its error was reported, or is not wanted any more
	if err := s.drv.close(); err != nil {
		return fmt.Errorf("%s: close: %w", s.target.display, err)
	}
	return nil
}

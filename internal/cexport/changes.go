package cexport

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/crawlutils/crawlutils/internal/ndjson"
	"github.com/crawlutils/crawlutils/internal/record"
	"github.com/crawlutils/crawlutils/internal/storage"
)

// Change tracking (--changed-only, --change-fields, --history): cexport
// remembers, for each item key (--key), a digest of the item last
// exported under it and when it was first seen, last seen and last
// changed, in an SQLite file (--changes-db: by default OUT.changes.db
// beside a file export, the database file itself for an SQLite table).
// An item is new (its key was never seen), changed (a field differs from
// the item last seen under its key) or unchanged. The state is committed
// only after the items before it are durable (with the acks), so a crash
// can export an item twice but never lose a change.

// Item verdicts.
const (
	changeNew       = "new"
	changeChanged   = "changed"
	changeUnchanged = "unchanged"
	changeGone      = "gone"
)

// changeFieldNames are the fields --change-fields adds to each item.
var changeFieldNames = []string{"first_seen", "last_seen", "changed_at", "round"}

// replacedField reports whether withChangeFields replaces an item's field
// named name, for an item of round (0: none).
func replacedField(name string, round int) bool {
	return slices.Contains(changeFieldNames, name) && (name != "round" || round > 0)
}

// changesSchema is the state's table: one row per key.
const changesSchema = `CREATE TABLE IF NOT EXISTS cexport_changes (
	scope      TEXT NOT NULL, -- the export: its path or table, and key fields
	key        TEXT NOT NULL, -- the key fields' values, as a JSON array
	digest     BLOB NOT NULL, -- sha256 of the item's fields, sorted
	first_seen TEXT NOT NULL,
	last_seen  TEXT NOT NULL,
	changed_at TEXT NOT NULL,
	round      INTEGER NOT NULL DEFAULT 0,
	gone       INTEGER NOT NULL DEFAULT 0, -- the round that found it gone (--gone); 0: not gone
	PRIMARY KEY (scope, key)
) WITHOUT ROWID`

// changeTracker decides, item by item, whether it is new, changed or
// unchanged, and keeps the state. Not safe for concurrent use, but for
// rejected, which a table's batch written behind calls.
type changeTracker struct {
	ctx   context.Context
	db    *storage.DB
	conn  *sql.Conn
	path  string
	scope string
	key   []string
	// keyFrom is the item's field of each key field: --key names the
	// fields as exported, so a name --fields gives is its FIELD's, and
	// with flatten a dotted name is a member's.
	keyFrom []string
	flatten bool
	flat    []record.Field
	// specs is --fields, which choose the fields compared, and which the
	// history's rows follow as the table's do; proj is reused.
	specs  []fieldSpec
	proj   []record.Field
	fields bool // --change-fields
	now    func() time.Time

	pending map[string]changeRow // checked since the last commit
	history *tableSink

	// lineKeys, with a table output (whose rows can be rejected), is the
	// key of each item checked since the last commit, by its line;
	// rejects, the lines of the items the table rejected since.
	lineKeys  map[lineID]string
	rejectsMu sync.Mutex
	rejects   []lineID
}

// lineID names an input line.
type lineID struct {
	source string
	num    int
}

// openChanges opens the state for the validated options o.
func openChanges(ctx context.Context, o *Options, now func() time.Time, warn func(string, ...any)) (*changeTracker, error) {
	path := o.ChangesDB
	if path == "" {
		path = o.defaultChangesDB()
	}
	db, err := storage.OpenDB(ctx, path, storage.DefaultBusyTimeout)
	if err != nil {
		return nil, fmt.Errorf("--changes-db %s: %w", path, err)
	}
	c := &changeTracker{ctx: ctx, db: db, path: path, key: o.Key, keyFrom: keySources(o.Key, o.fields), flatten: o.Flatten, specs: o.fields, fields: o.ChangeFields, now: now}
	if o.db != nil {
		c.lineKeys = map[lineID]string{}
	}
	c.scope = o.changesScope()
	c.conn, err = db.Conn(ctx)
	if err == nil {
		_, err = c.conn.ExecContext(ctx, "PRAGMA synchronous=FULL")
	}
	if err == nil {
		_, err = c.conn.ExecContext(ctx, changesSchema)
	}
	if err == nil {
		err = addGoneColumn(ctx, c.conn)
	}
	if err != nil {
		c.close()
		return nil, fmt.Errorf("--changes-db %s: %w", path, describeSQLite(err))
	}
	if o.History {
		h := *o
		t := *o.db
		t.table = t.historyTable()
		t.display = o.db.display + " (history table " + t.table + ")"
		h.db, h.Key, h.Alter, h.Overwrite = &t, nil, true, false
		if c.history, err = openTableSink(ctx, &h, func(line ndjson.Line, err error) {}, warn); err != nil {
			c.close()
			return nil, fmt.Errorf("--history: %w", err)
		}
	}
	return c, nil
}

// defaultChangesDB is where the state is kept without --changes-db.
func (o *Options) defaultChangesDB() string {
	if o.db != nil && o.db.driver == driverSQLite {
		return o.db.dsn
	}
	return o.Output + ".changes.db"
}

// changesScope names the export in the state, so that one state file can
// serve several exports.
func (o *Options) changesScope() string {
	name := o.Output
	if o.db != nil {
		name = o.db.display
	}
	return name + " key=" + strings.Join(o.Key, ",")
}

// changeRow is the state of one key.
type changeRow struct {
	digest               [32]byte
	first, last, changed string
	round                int
	gone                 int // the round that found it gone; 0: not gone
}

// lookup returns the state of key: pending (checked since the last
// commit) or committed; ok is false for a key never seen.
func (c *changeTracker) lookup(key string) (changeRow, bool, error) {
	if r, ok := c.pending[key]; ok {
		return r, true, nil
	}
	var r changeRow
	var digest []byte
	err := c.conn.QueryRowContext(c.ctx, `SELECT digest, first_seen, last_seen, changed_at, round, gone FROM cexport_changes WHERE scope = ? AND key = ?`,
		c.scope, key).Scan(&digest, &r.first, &r.last, &r.changed, &r.round, &r.gone)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return r, false, nil
	case err != nil:
		return r, false, describeSQLite(err)
	}
	copy(r.digest[:], digest)
	return r, true, nil
}

// check returns the verdict on one item (fields: its data; raw: the whole
// record, for its fetched_at and round) and the fields to export: with
// --change-fields, fields and first_seen, last_seen, changed_at and the
// crawl's round.
func (c *changeTracker) check(line ndjson.Line, raw []byte, fields []record.Field) (string, []record.Field, error) {
	kf := fields
	if c.flatten {
		kf = flatten(fields, c.flat)
		c.flat = kf[:0]
	}
	key, err := itemKey(kf, c.keyFrom)
	if err != nil {
		return "", nil, err
	}
	c.forgetRejected()
	if c.lineKeys != nil {
		c.lineKeys[lineID{line.Source, line.Num}] = key
	}
	seen, round := itemSeen(raw, c.now)
	// The item as it is exported: --fields chooses what is compared.
	exported := fields
	if len(c.specs) > 0 {
		exported = project(fields, c.specs, c.proj)
		c.proj = exported[:0]
	}
	digest := itemDigest(exported, c.fields, round)
	row, ok, err := c.lookup(key)
	if err != nil {
		return "", nil, err
	}
	verdict := changeUnchanged
	switch {
	case !ok || row.gone > 0:
		// Never seen, or back after it was found gone.
		verdict = changeNew
		row = changeRow{first: seen, changed: seen}
	case row.digest != digest:
		verdict = changeChanged
		row.changed = seen
	}
	row.digest, row.last, row.round = digest, seen, round
	if c.pending == nil {
		c.pending = map[string]changeRow{}
	}
	c.pending[key] = row
	first, changed := row.first, row.changed
	if c.history != nil && verdict != changeUnchanged {
		// The item as the table has it, with the change fields.
		h := withChangeFields(exported, first, seen, changed, round)
		h = append(h, record.Field{Key: "change", Value: json.RawMessage(strconv.Quote(verdict))})
		if err := c.history.Write(h); err != nil {
			return "", nil, fmt.Errorf("--history: %w", err)
		}
	}
	if c.fields {
		return verdict, withChangeFields(fields, first, seen, changed, round), nil
	}
	return verdict, fields, nil
}

// withChangeFields returns fields with first_seen, last_seen,
// changed_at and, when the item has one (a crawl run by cqueue crawl), its
// round, replacing fields of those names. Without a round, the item's own
// "round" stays.
func withChangeFields(fields []record.Field, first, last, changed string, round int) []record.Field {
	out := make([]record.Field, 0, len(fields)+4)
	for _, f := range fields {
		if !replacedField(f.Key, round) {
			out = append(out, f)
		}
	}
	for i, v := range []string{first, last, changed} {
		out = append(out, record.Field{Key: changeFieldNames[i], Value: json.RawMessage(strconv.Quote(v))})
	}
	if round > 0 {
		out = append(out, record.Field{Key: "round", Value: json.RawMessage(strconv.Itoa(round))})
	}
	return out
}

// rejected says that the table rejected the item read at line: it was not
// written, so the state of its key is not to change (forgetRejected).
// Safe to call from another goroutine.
func (c *changeTracker) rejected(line ndjson.Line) {
	c.rejectsMu.Lock()
	c.rejects = append(c.rejects, lineID{line.Source, line.Num})
	c.rejectsMu.Unlock()
}

// forgetRejected drops what was checked since the last commit of the keys
// of rejected items, so their state stays as committed: the next item or
// run with the key is new or changed, as if the rejected one never came
// (the items of the key checked since are judged again, and may be
// written twice, never lost).
func (c *changeTracker) forgetRejected() {
	c.rejectsMu.Lock()
	rejects := c.rejects
	c.rejects = nil
	c.rejectsMu.Unlock()
	for _, id := range rejects {
		if key, ok := c.lineKeys[id]; ok {
			delete(c.pending, key)
		}
	}
}

// commit makes the state durable, in one short transaction; call it once
// the items checked so far are.
func (c *changeTracker) commit() error {
	c.forgetRejected()
	clear(c.lineKeys)
	if c.history != nil {
		if err := c.history.Commit(); err != nil {
			return fmt.Errorf("--history: %w", err)
		}
	}
	if len(c.pending) == 0 {
		return nil
	}
	err := func() error {
		tx, err := c.conn.BeginTx(c.ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		put, err := tx.PrepareContext(c.ctx, `INSERT INTO cexport_changes (scope, key, digest, first_seen, last_seen, changed_at, round, gone)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (scope, key) DO UPDATE SET digest = excluded.digest, first_seen = excluded.first_seen,
				last_seen = excluded.last_seen, changed_at = excluded.changed_at, round = excluded.round, gone = excluded.gone`)
		if err != nil {
			return err
		}
		for key, r := range c.pending {
			if _, err := put.ExecContext(c.ctx, c.scope, key, r.digest[:], r.first, r.last, r.changed, r.round, r.gone); err != nil {
				return err
			}
		}
		return tx.Commit()
	}()
	if err != nil {
		return fmt.Errorf("--changes-db %s: %w", c.path, describeSQLite(err))
	}
	clear(c.pending)
	return nil
}

func (c *changeTracker) close() {
	if c.history != nil {
		c.history.End()
	}
	if c.conn != nil {
		c.conn.Close()
	}
	c.db.Close()
}

// keySources returns the item's field of each key field named as exported:
// the FIELD of a --fields entry FIELD:NAME, else the name itself.
func keySources(key []string, specs []fieldSpec) []string {
	from := slices.Clone(key)
	for i, k := range key {
		if j := slices.IndexFunc(specs, func(s fieldSpec) bool { return s.To == k }); j >= 0 {
			from[i] = specs[j].From
		}
	}
	return from
}

// itemKey is the values of the key fields, as a JSON array; an item
// lacking one is an error.
func itemKey(fields []record.Field, key []string) (string, error) {
	var b strings.Builder
	b.WriteByte('[')
	for i, k := range key {
		j := slices.IndexFunc(fields, func(f record.Field) bool { return f.Key == k })
		if j < 0 {
			return "", fmt.Errorf("no field %q (--key)", k)
		}
		if i > 0 {
			b.WriteByte(',')
		}
		var c bytes.Buffer
		if json.Compact(&c, fields[j].Value) != nil {
			return "", fmt.Errorf("field %q (--key): invalid JSON", k)
		}
		b.Write(c.Bytes())
	}
	b.WriteByte(']')
	return b.String(), nil
}

// itemDigest is a digest of fields that does not depend on their order or
// white space, nor, when changeFields (--change-fields replaces them in
// the export), on the change fields that withChangeFields replaces for an
// item of this round. Other fields of those names are the item's own data,
// which counts as any other field.
func itemDigest(fields []record.Field, changeFields bool, round int) [32]byte {
	sorted := slices.Clone(fields)
	slices.SortStableFunc(sorted, func(a, b record.Field) int { return strings.Compare(a.Key, b.Key) })
	h := sha256.New()
	var c bytes.Buffer
	for _, f := range sorted {
		if changeFields && replacedField(f.Key, round) {
			continue
		}
		c.Reset()
		if json.Compact(&c, f.Value) != nil {
			c.Write(f.Value)
		}
		fmt.Fprintf(h, "%q:%d:", f.Key, c.Len())
		h.Write(c.Bytes())
	}
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}

// itemSeen is when the item was fetched (its fetched_at, else now) and
// its round (0 when it has none).
func itemSeen(raw []byte, now func() time.Time) (string, int) {
	var top struct {
		FetchedAt string          `json:"fetched_at"`
		Round     json.RawMessage `json:"round"`
	}
	json.Unmarshal(raw, &top)
	seen := top.FetchedAt
	if _, err := time.Parse(time.RFC3339, seen); err != nil {
		seen = now().UTC().Format("2006-01-02T15:04:05.000Z")
	}
	round, _ := strconv.Atoi(string(top.Round))
	return seen, round
}

// addChangeFlags defines the change tracking flags.
func addChangeFlags(f interface {
	BoolVar(p *bool, name string, value bool, usage string)
	StringVar(p *string, name string, value string, usage string)
	IntVar(p *int, name string, value int, usage string)
}, o *Options) {
	f.BoolVar(&o.ChangedOnly, "changed-only", false, "write an item only when it is new or a field differs from the last item exported with the same --key (a recrawl exports what changed)")
	f.BoolVar(&o.ChangeFields, "change-fields", false, "add first_seen, last_seen and changed_at (from the items' fetched_at), and the crawl's round, to each item; needs --key")
	f.BoolVar(&o.History, "history", false, "with a database output and --key: add every new or changed item, with its change and round, to the table TABLE_history")
	f.IntVar(&o.Gone, "gone", 0, "once `ROUND` of a crawl is complete: report as gone (\"change\": \"gone\") the items last seen in an earlier round, in TABLE_history and, with --changed-only, in a JSON, JSON lines or XML export (cqueue crawl runs it)")
	f.StringVar(&o.ChangesDB, "changes-db", "", "the SQLite `FILE` where the items' digests are kept between runs (default OUT.changes.db, or the SQLite output's own file)")
}

// checkChange judges an item; it returns the fields to export, or nil for
// an unchanged item under --changed-only (counted as dropped "unchanged").
func (s *session) checkChange(line ndjson.Line, raw []byte, fields []record.Field) ([]record.Field, error) {
	verdict, out, err := s.changes.check(line, raw, fields)
	if err != nil {
		if strings.Contains(err.Error(), "(--key)") {
			s.tool.Reject(line, "no_key", fmt.Errorf("item not exported: %v", err))
			return nil, nil
		}
		s.fail(err, true)
		return nil, err
	}
	s.tool.Stats.Count("changes", verdict, 1)
	if verdict == changeUnchanged && s.opts.ChangedOnly {
		s.tool.Stats.Drop("unchanged")
		return nil, nil
	}
	return out, nil
}

// commitChanges commits the change state once the items before are
// durable.
func (s *session) commitChanges() error {
	if s.changes == nil {
		return nil
	}
	return s.changes.commit()
}

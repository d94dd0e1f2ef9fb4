package cexport

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/record"
)

// Items gone (--gone ROUND): once a round of a crawl is complete, every
// key last seen in another round (its row's round) was not seen in this
// one: its item is gone. Another round is an earlier one, or a later one
// when the rounds began over (the frontier lost its record of the crawl:
// a Redis that restarted empty, a new --db). It is reported once, as a record of its key
// fields, first_seen, last_seen, changed_at (when it was found gone), the
// round and "change": "gone" — a row of TABLE_history, and with
// --changed-only an item of a JSON, JSON lines or XML export — and its
// row keeps the round that found it gone. An item seen again is new.
// Keys without a round (items exported outside a crawl's rounds) are
// never gone.

// addGoneColumn adds the gone column to a state made before it.
func addGoneColumn(ctx context.Context, conn *sql.Conn) error {
	if _, err := conn.ExecContext(ctx, `SELECT gone FROM cexport_changes LIMIT 0`); err == nil {
		return nil
	}
	_, err := conn.ExecContext(ctx, `ALTER TABLE cexport_changes ADD COLUMN gone INTEGER NOT NULL DEFAULT 0`)
	return err
}

// goneItems finds the items gone by the end of round (see above), adds
// them to the history, marks them in the state (committed with the rest)
// and returns their records.
func (c *changeTracker) goneItems(round int) ([][]record.Field, error) {
	type gone struct {
		key string
		row changeRow
	}
	var found []gone
	err := func() error {
		rows, err := c.conn.QueryContext(c.ctx, `SELECT key, digest, first_seen, last_seen, changed_at, round FROM cexport_changes
			WHERE scope = ? AND gone = 0 AND round > 0 AND round != ?`, c.scope, round)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var g gone
			var digest []byte
			if err := rows.Scan(&g.key, &digest, &g.row.first, &g.row.last, &g.row.changed, &g.row.round); err != nil {
				return err
			}
			copy(g.row.digest[:], digest)
			if p, ok := c.pending[g.key]; ok && (p.round >= round || p.gone > 0) {
				continue // seen in this round, by this run
			}
			found = append(found, g)
		}
		return rows.Err()
	}()
	if err != nil {
		return nil, fmt.Errorf("--changes-db %s: %w", c.path, describeSQLite(err))
	}
	now := c.now().UTC().Format("2006-01-02T15:04:05.000Z")
	var out [][]record.Field
	for _, g := range found {
		fields, err := keyFields(g.key, c.key)
		if err != nil {
			return nil, fmt.Errorf("--changes-db %s: key %s: %v", c.path, g.key, err)
		}
		fields = withChangeFields(fields, g.row.first, g.row.last, now, round)
		fields = append(fields, record.Field{Key: "change", Value: json.RawMessage(strconv.Quote(changeGone))})
		if c.history != nil {
			if err := c.history.Write(fields); err != nil {
				return nil, fmt.Errorf("--history: %w", err)
			}
		}
		g.row.gone = round
		if c.pending == nil {
			c.pending = map[string]changeRow{}
		}
		c.pending[g.key] = g.row
		out = append(out, fields)
	}
	return out, nil
}

// keyFields are the key fields of a key (itemKey's JSON array).
func keyFields(key string, names []string) ([]record.Field, error) {
	var vals []json.RawMessage
	if err := json.Unmarshal([]byte(key), &vals); err != nil {
		return nil, err
	}
	if len(vals) != len(names) {
		return nil, fmt.Errorf("%d values for --key %d fields", len(vals), len(names))
	}
	fields := make([]record.Field, len(names), len(names)+6)
	for i, n := range names {
		fields[i] = record.Field{Key: n, Value: vals[i]}
	}
	return fields, nil
}

// goneToOutput says whether the items found gone are written to the
// export itself: with --changed-only (an export of the changes), into a
// JSON, JSON lines or XML file or stdout. A database table keeps the last
// version of each item (TABLE_history has the gone row); a CSV's columns
// are the items' fields.
func (o *Options) goneToOutput() bool {
	return o.ChangedOnly && o.db == nil && o.batch == nil && !o.isTable()
}

// runGone is cexport --gone: it reads no input, reports the items gone
// by the end of the round and ends. With nothing tracked from one round
// to the next (no --changed-only, --change-fields or --history), nothing
// can be found gone: it does nothing.
func runGone(ctx context.Context, tool *cli.Tool, o *Options, files []string, stdout io.Writer, now func() time.Time) error {
	if len(files) > 0 {
		return cli.Usagef("--gone reads no input (it reports what the rounds before did not see again): leave out %s", files[0])
	}
	if !o.tracksChanges() {
		return tool.Done(ctx)
	}
	c, err := openChanges(context.WithoutCancel(ctx), o, now, tool.Printf)
	if err != nil {
		tool.Fail(err)
		return tool.Done(ctx)
	}
	defer c.close()
	// The export is opened at the first gone item it gets, if any.
	s := &session{tool: tool, opts: o, stdout: stdout, changes: c, out: &output{name: o.Output}}
	s.sweepGone()
	s.end()
	return tool.Done(ctx)
}

// sweepGone reports the items gone by the end of round --gone: in the
// history, the state and, when goneToOutput, the export.
func (s *session) sweepGone() {
	items, err := s.changes.goneItems(s.opts.Gone)
	if err != nil {
		s.fail(err, true)
		return
	}
	if len(items) == 0 {
		return
	}
	s.tool.Stats.Count("changes", changeGone, int64(len(items)))
	if !s.opts.goneToOutput() {
		return
	}
	for _, fields := range items {
		if !s.emit(nil, fields) {
			return
		}
	}
}

package toolstats

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/crawlutils/crawlutils/internal/statspub"
	"github.com/crawlutils/crawlutils/internal/storage"
)

// On SQLite the snapshots are rows of a table of the frontier's file,
// made by the first Put:
const toolsTable = `CREATE TABLE IF NOT EXISTS frontier_tools (
	id      TEXT PRIMARY KEY,
	expires INTEGER NOT NULL, -- Unix ms
	doc     TEXT NOT NULL     -- the snapshot's JSON
) WITHOUT ROWID`

// sqliteStore holds one connection of its own: no checkpointer, no page
// cache to speak of (a few rows), since every tool of a loop may open one.
type sqliteStore struct {
	db          *sql.DB
	busyTimeout time.Duration

	mu    sync.Mutex
	ready bool // the table is known to exist
}

func openSQLite(ctx context.Context, path string, o Options) (*sqliteStore, error) {
	bt := o.BusyTimeout
	if bt <= 0 {
		bt = storage.DefaultBusyTimeout
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", bt.Milliseconds()))
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil, storage.DescribeSQLiteError(err, bt)
	}
	db.SetMaxOpenConns(1)
	var mode string
	if err := db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		db.Close()
		return nil, storage.DescribeSQLiteError(err, bt)
	}
	if !strings.EqualFold(mode, "wal") {
		db.Close()
		return nil, fmt.Errorf("%s is not a frontier (journal_mode %s, not wal)", path, mode)
	}
	return &sqliteStore{db: db, busyTimeout: bt}, nil
}

// Put is one short write transaction: it waits at most the busy timeout
// for the write lock, and holds it for an upsert per snapshot and the
// delete of the expired rows.
func (s *sqliteStore) Put(ctx context.Context, now time.Time, snaps ...statspub.Snapshot) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return storage.DescribeSQLiteError(err, s.busyTimeout)
	}
	defer tx.Rollback()
	if !s.ready {
		if _, err := tx.ExecContext(ctx, toolsTable); err != nil {
			return storage.DescribeSQLiteError(err, s.busyTimeout)
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM frontier_tools WHERE expires <= ?`, now.UnixMilli()); err != nil {
		return storage.DescribeSQLiteError(err, s.busyTimeout)
	}
	for i := range snaps {
		b, err := json.Marshal(&snaps[i])
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO frontier_tools (id, expires, doc) VALUES (?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET expires = excluded.expires, doc = excluded.doc`,
			snaps[i].ID(), snaps[i].Expires().UnixMilli(), string(b)); err != nil {
			return storage.DescribeSQLiteError(err, s.busyTimeout)
		}
	}
	if err := tx.Commit(); err != nil {
		return storage.DescribeSQLiteError(err, s.busyTimeout)
	}
	s.ready = true
	return nil
}

// List is one read: none when no tool has published yet (no table).
func (s *sqliteStore) List(ctx context.Context, now time.Time) ([]statspub.Snapshot, error) {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, storage.DescribeSQLiteError(err, s.busyTimeout)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'frontier_tools'`).Scan(&n); err != nil {
		return nil, storage.DescribeSQLiteError(err, s.busyTimeout)
	}
	if n == 0 {
		return []statspub.Snapshot{}, nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT doc FROM frontier_tools WHERE expires > ? ORDER BY id`, now.UnixMilli())
	if err != nil {
		return nil, storage.DescribeSQLiteError(err, s.busyTimeout)
	}
	defer rows.Close()
	var docs []string
	for rows.Next() {
		var d string
		if err := rows.Scan(&d); err != nil {
			return nil, err
		}
		docs = append(docs, d)
	}
	if err := rows.Err(); err != nil {
		return nil, storage.DescribeSQLiteError(err, s.busyTimeout)
	}
	return sorted(decode(docs)), nil
}

func (s *sqliteStore) Close() error { return s.db.Close() }

// sorted sorts snapshots by ID.
func sorted(s []statspub.Snapshot) []statspub.Snapshot {
	slices.SortFunc(s, func(a, b statspub.Snapshot) int { return strings.Compare(a.ID(), b.ID()) })
	return s
}

package dedupe

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"github.com/crawlutils/crawlutils/internal/storage"
	"slices"
	"sync"
	"time"
)

// sqliteSchema creates the dedupe tables; it is idempotent. Keys are stored
// as signed 64-bit integers (the uint64 bit pattern), ordered by group (g,
// Key.Group) first, so a batch from few hosts writes few pages.
const sqliteSchema = `
CREATE TABLE IF NOT EXISTS dedupe_ns (
	id         INTEGER PRIMARY KEY,
	name       TEXT NOT NULL UNIQUE,
	expires_at INTEGER NOT NULL DEFAULT 0 -- Unix ms; 0 = never
);
CREATE TABLE IF NOT EXISTS dedupe_seen (
	ns   INTEGER NOT NULL,
	g    INTEGER NOT NULL, -- Key.Group
	k    INTEGER NOT NULL,
	sha1 BLOB,             -- Scrapy fingerprint, for requests.seen export
	PRIMARY KEY (ns, g, k)
) WITHOUT ROWID;
`

// A file made before groups has dedupe_seen (ns, k, sha1) keyed by (ns, k):
// the store keeps using it as it is, with every key's group taken as 0 (the
// keys in it were computed without one), and only loses the locality.
const (
	insertGrouped = `INSERT INTO dedupe_seen (ns, g, k, sha1) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`
	insertLegacy  = `INSERT INTO dedupe_seen (ns, k, sha1) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`
	exportGrouped = `SELECT g, k, sha1 FROM dedupe_seen WHERE ns = ?`
	exportLegacy  = `SELECT 0, k, sha1 FROM dedupe_seen WHERE ns = ?`
)

// SQLite is a Store in an SQLite file. Its methods are safe for concurrent
// use; writers of one process take turns on a mutex, writers of different
// processes on SQLite's lock (waiting up to the busy timeout).
type SQLite struct {
	db      *sql.DB
	own     *storage.DB // closed by Close when the store opened it
	ttl     time.Duration
	busy    time.Duration
	writeMu sync.Mutex
	insert  *sql.Stmt
	legacy  bool // dedupe_seen has no group column
}

// OpenSQLite opens (creating if needed) the store in the SQLite file at
// path. Errors say what is wrong with the file (see DescribeSQLiteError)
// and start with "dedupe: open PATH:".
func OpenSQLite(ctx context.Context, path string, o Options) (*SQLite, error) {
	db, err := storage.OpenDB(ctx, path, o.BusyTimeout)
	if err != nil {
		return nil, fmt.Errorf("dedupe: open %s: %w", path, err)
	}
	s, err := NewSQLite(ctx, db.DB, o)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("dedupe: open %s: %w", path, err)
	}
	s.own = db
	return s, nil
}

// NewSQLite returns a store on db, an SQLite database opened with OpenDB,
// creating its tables if needed. Close does not close db. This is how the
// frontier shares one file, and one transaction, with its dupefilter.
func NewSQLite(ctx context.Context, db *sql.DB, o Options) (*SQLite, error) {
	busy := o.BusyTimeout
	if busy <= 0 {
		busy = storage.DefaultBusyTimeout
	}
	if _, err := db.ExecContext(ctx, sqliteSchema); err != nil {
		return nil, storage.DescribeSQLiteError(err, busy)
	}
	var grouped int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('dedupe_seen') WHERE name = 'g'`).Scan(&grouped); err != nil {
		return nil, storage.DescribeSQLiteError(err, busy)
	}
	legacy := grouped == 0
	stmt := insertGrouped
	if legacy {
		stmt = insertLegacy
	}
	ins, err := db.PrepareContext(ctx, stmt)
	if err != nil {
		return nil, storage.DescribeSQLiteError(err, busy)
	}
	return &SQLite{db: db, ttl: o.TTL, busy: busy, insert: ins, legacy: legacy}, nil
}

// Close implements Store.
func (s *SQLite) Close() error {
	s.insert.Close()
	if s.own != nil {
		return s.own.Close()
	}
	return nil
}

func (s *SQLite) fail(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("dedupe: %s: %w", op, err)
	}
	return fmt.Errorf("dedupe: %s: %w", op, storage.DescribeSQLiteError(err, s.busy))
}

// write runs fn in one BEGIN IMMEDIATE transaction.
func (s *SQLite) write(ctx context.Context, fn func(*sql.Tx) error) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// SeenBatch implements Store.
func (s *SQLite) SeenBatch(ctx context.Context, ns string, keys []Key, now time.Time) ([]bool, error) {
	var out []bool
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		out, err = s.SeenTx(ctx, tx, ns, keys, now)
		return err
	})
	if err != nil {
		return nil, s.fail("seen", err)
	}
	return out, nil
}

// SeenTx is SeenBatch inside the caller's write transaction tx (begun on
// the db the store was made with), so that marking keys seen commits or
// rolls back with the caller's other changes.
func (s *SQLite) SeenTx(ctx context.Context, tx *sql.Tx, ns string, keys []Key, now time.Time) ([]bool, error) {
	id, err := s.touch(ctx, tx, ns, now)
	if err != nil {
		return nil, err
	}
	ins := tx.StmtContext(ctx, s.insert)
	out := make([]bool, len(keys))
	// In key order, each page of the table is visited once per batch
	// (fewer reads, fewer splits); stable, so the first of equal keys is
	// the new one.
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ka, kb := &keys[a], &keys[b]
		if !s.legacy {
			if c := cmp.Compare(ka.Group, kb.Group); c != 0 {
				return c
			}
		}
		return cmp.Compare(int64(ka.Hash), int64(kb.Hash))
	})
	for _, i := range order {
		k := keys[i]
		var fp any
		if k.Scrapy {
			fp = k.SHA1[:]
		}
		var res sql.Result
		if s.legacy {
			res, err = ins.ExecContext(ctx, id, int64(k.Hash), fp)
		} else {
			res, err = ins.ExecContext(ctx, id, int64(k.Group), int64(k.Hash), fp)
		}
		if err != nil {
			return nil, err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return nil, err
		}
		out[i] = n == 1
	}
	return out, nil
}

// touch returns ns's id, creating the namespace or emptying it when it has
// expired, and sets its expiry to now+TTL.
func (s *SQLite) touch(ctx context.Context, tx *sql.Tx, ns string, now time.Time) (int64, error) {
	var id, exp int64
	err := tx.QueryRowContext(ctx, `SELECT id, expires_at FROM dedupe_ns WHERE name = ?`, ns).Scan(&id, &exp)
	next := expiresAt(now, s.ttl)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		err = tx.QueryRowContext(ctx, `INSERT INTO dedupe_ns (name, expires_at) VALUES (?, ?) RETURNING id`, ns, next).Scan(&id)
		return id, err
	case err != nil:
		return 0, err
	}
	if exp != 0 && exp <= now.UnixMilli() {
		if _, err := tx.ExecContext(ctx, `DELETE FROM dedupe_seen WHERE ns = ?`, id); err != nil {
			return 0, err
		}
	}
	if next != exp {
		if _, err := tx.ExecContext(ctx, `UPDATE dedupe_ns SET expires_at = ? WHERE id = ?`, next, id); err != nil {
			return 0, err
		}
	}
	return id, nil
}

// lookup returns ns's id, or ok false when it does not exist or has
// expired at now.
func (s *SQLite) lookup(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, ns string, now time.Time) (id int64, ok bool, err error) {
	var exp int64
	err = q.QueryRowContext(ctx, `SELECT id, expires_at FROM dedupe_ns WHERE name = ?`, ns).Scan(&id, &exp)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	return id, exp == 0 || exp > now.UnixMilli(), nil
}

// Len implements Store.
func (s *SQLite) Len(ctx context.Context, ns string, now time.Time) (int64, error) {
	id, ok, err := s.lookup(ctx, s.db, ns, now)
	if err != nil || !ok {
		return 0, s.fail("len", err)
	}
	var n int64
	err = s.db.QueryRowContext(ctx, `SELECT count(*) FROM dedupe_seen WHERE ns = ?`, id).Scan(&n)
	return n, s.fail("len", err)
}

// Export implements Store. It reads in one read transaction, so it sees
// one state of the set while writers go on.
func (s *SQLite) Export(ctx context.Context, ns string, now time.Time, fn func(Key) error) error {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return s.fail("export", err)
	}
	defer tx.Rollback()
	id, ok, err := s.lookup(ctx, tx, ns, now)
	if err != nil || !ok {
		return s.fail("export", err)
	}
	q := exportGrouped
	if s.legacy {
		q = exportLegacy
	}
	rows, err := tx.QueryContext(ctx, q, id)
	if err != nil {
		return s.fail("export", err)
	}
	defer rows.Close()
	for rows.Next() {
		var g, h int64
		var fp []byte
		if err := rows.Scan(&g, &h, &fp); err != nil {
			return s.fail("export", err)
		}
		k := HashKey(uint64(h))
		if len(fp) == 20 {
			k = ScrapyKey([20]byte(fp))
		}
		k.Group = uint16(g)
		if err := fn(k); err != nil {
			return err
		}
	}
	return s.fail("export", rows.Err())
}

// Forget implements Store.
func (s *SQLite) Forget(ctx context.Context, ns string) error {
	return s.fail("forget", s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM dedupe_seen WHERE ns = (SELECT id FROM dedupe_ns WHERE name = ?)`, ns); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM dedupe_ns WHERE name = ?`, ns)
		return err
	}))
}

// Expire implements Store.
func (s *SQLite) Expire(ctx context.Context, now time.Time) (int, error) {
	n := 0
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		n, err = s.ExpireTx(ctx, tx, now)
		return err
	})
	return n, s.fail("expire", err)
}

// ExpireTx is Expire inside the caller's write transaction.
func (s *SQLite) ExpireTx(ctx context.Context, tx *sql.Tx, now time.Time) (int, error) {
	ms := now.UnixMilli()
	if _, err := tx.ExecContext(ctx, `DELETE FROM dedupe_seen WHERE ns IN
		(SELECT id FROM dedupe_ns WHERE expires_at != 0 AND expires_at <= ?)`, ms); err != nil {
		return 0, err
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM dedupe_ns WHERE expires_at != 0 AND expires_at <= ?`, ms)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// HasTx reports, for each key, whether namespace ns holds it at now,
// inside the caller's transaction tx, without adding anything: a
// namespace that does not exist or has expired holds nothing.
func (s *SQLite) HasTx(ctx context.Context, tx *sql.Tx, ns string, keys []Key, now time.Time) ([]bool, error) {
	out := make([]bool, len(keys))
	id, ok, err := s.lookup(ctx, tx, ns, now)
	if err != nil || !ok {
		return out, err
	}
	q := `SELECT 1 FROM dedupe_seen WHERE ns = ? AND g = ? AND k = ?`
	if s.legacy {
		q = `SELECT 1 FROM dedupe_seen WHERE ns = ? AND k = ? AND ? = ?`
	}
	for i, k := range keys {
		var one int
		var err error
		if s.legacy {
			err = tx.QueryRowContext(ctx, q, id, int64(k.Hash), 0, 0).Scan(&one)
		} else {
			err = tx.QueryRowContext(ctx, q, id, int64(k.Group), int64(k.Hash)).Scan(&one)
		}
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return nil, err
		default:
			out[i] = true
		}
	}
	return out, nil
}

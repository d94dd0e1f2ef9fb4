package frontier

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/crawlutils/crawlutils/internal/dedupe"
	"github.com/crawlutils/crawlutils/internal/storage"
)

// sqliteSchema is the frontier's part of the shared SQLite file (the
// duplicate filter's tables, dedupe_ns and dedupe_seen, sit beside it).
//
// A queue is one (crawl, host) pair. frontier_queues keeps each queue's
// counters, the priority of its head (top) and its round-robin turn; the
// partial index frontier_queues_ready orders the non-empty queues by
// (top DESC, turn), so the next queue to serve is its first row.
// frontier_entries holds every request; frontier_entries_pop orders a
// queue's queued requests by (prio DESC, ord), frontier_entries_lease
// the in-flight ones by lease deadline and frontier_entries_held by
// the consumer holding them, all partial, so each holds only the rows it
// serves and pop, ack and reclaim are O(log n) at any size.
// frontier_consumers holds the registered consumers and their heartbeats.
// frontier_crawl_meta holds each crawl's metadata (CrawlMeta); a file made
// before it existed gets it from the first SetCrawlMeta, so older programs
// still open the file (the schema version is unchanged). In the same way
// frontier_dead_reasons (see sqlite_fail.go) comes with the first fail.
const sqliteSchema = `
CREATE TABLE IF NOT EXISTS frontier_meta (
	name TEXT PRIMARY KEY,
	n    INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS frontier_stats (
	name TEXT PRIMARY KEY,
	n    INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS frontier_crawls (
	id       INTEGER PRIMARY KEY,
	crawlid  TEXT NOT NULL UNIQUE,
	appid    TEXT NOT NULL DEFAULT '',
	expires  INTEGER NOT NULL DEFAULT 0, -- Unix seconds; 0 = never
	state    INTEGER NOT NULL DEFAULT 0, -- 0 active, 1 stopped, 2 expired
	purged   INTEGER NOT NULL DEFAULT 0, -- queued requests purged when it expired
	notified INTEGER NOT NULL DEFAULT 0  -- its expiry was reported by Expire
);
CREATE INDEX IF NOT EXISTS frontier_crawls_expiry ON frontier_crawls (expires) WHERE state = 0 AND expires != 0;
CREATE TABLE IF NOT EXISTS frontier_queues (
	id        INTEGER PRIMARY KEY,
	crawl     INTEGER NOT NULL,
	host      TEXT NOT NULL,
	queued    INTEGER NOT NULL DEFAULT 0,
	in_flight INTEGER NOT NULL DEFAULT 0,
	dead      INTEGER NOT NULL DEFAULT 0,
	top       INTEGER NOT NULL DEFAULT 0, -- priority of the head, when queued > 0
	turn      INTEGER NOT NULL DEFAULT 0, -- round robin: the lowest is served first
	UNIQUE (crawl, host)
);
CREATE INDEX IF NOT EXISTS frontier_queues_ready ON frontier_queues (top DESC, turn, id) WHERE queued > 0;
CREATE TABLE IF NOT EXISTS frontier_entries (
	id       INTEGER PRIMARY KEY,
	queue    INTEGER NOT NULL,
	prio     INTEGER NOT NULL,           -- queue priority (after DepthPriority)
	ord      INTEGER NOT NULL,           -- id (FIFO) or -id (LIFO)
	state    INTEGER NOT NULL DEFAULT 0, -- 0 queued, 1 in flight, 2 dead
	lease    INTEGER NOT NULL DEFAULT 0, -- nonce of the current or last lease; 0 = never leased
	deadline INTEGER NOT NULL DEFAULT 0, -- lease deadline, Unix ms, while in flight
	expiries INTEGER NOT NULL DEFAULT 0, -- leases that expired
	raw      BLOB NOT NULL,              -- the request JSON, without lease
	consumer TEXT NOT NULL DEFAULT '',   -- the consumer holding it in flight ('' none)
	abandons INTEGER NOT NULL DEFAULT 0  -- times its consumer died holding it
);
CREATE TABLE IF NOT EXISTS frontier_consumers (
	id   TEXT PRIMARY KEY,
	host TEXT NOT NULL,
	pid  INTEGER NOT NULL,
	boot TEXT NOT NULL,
	beat INTEGER NOT NULL -- last heartbeat, Unix ms
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS frontier_crawl_meta (
	crawlid TEXT NOT NULL,
	key     TEXT NOT NULL,
	value   TEXT NOT NULL,
	PRIMARY KEY (crawlid, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS frontier_entries_pop ON frontier_entries (queue, prio DESC, ord) WHERE state = 0;
CREATE INDEX IF NOT EXISTS frontier_entries_lease ON frontier_entries (deadline) WHERE state = 1;
` + sqliteDeadReasonsTable + ";\n"

// sqliteIndexesV2 are the indexes on columns schema version 2 added (run
// after the migration). frontier_entries_held covers what pop reads of the
// requests a consumer holds (their queue, for the per-host window, and
// lease, for the horizon), so that count, run at every pop, reads no row
// of the table; it replaces frontier_entries_consumer, on consumer alone.
const sqliteIndexesV2 = `
CREATE INDEX IF NOT EXISTS frontier_entries_held ON frontier_entries (consumer, queue, lease) WHERE state = 1 AND consumer != '';
DROP INDEX IF EXISTS frontier_entries_consumer;
`

// sqliteMigrateV1 brings a version 1 file to version 2 (consumers).
const sqliteMigrateV1 = `
ALTER TABLE frontier_entries ADD COLUMN consumer TEXT NOT NULL DEFAULT '';
ALTER TABLE frontier_entries ADD COLUMN abandons INTEGER NOT NULL DEFAULT 0;
`

// Entry states in frontier_entries.state, crawl states in
// frontier_crawls.state.
const (
	stQueued, stInFlight, stDead      = 0, 1, 2
	crActive, crStopped, crExpired    = 0, 1, 2
	metaSeq, metaTurn, metaSchemaName = "seq", "turn", "schema"
	schemaVersion                     = 2
)

// SQLite is a Frontier in an SQLite file: see OpenSQLite.
type SQLite struct {
	db     *sql.DB
	dbh    *storage.DB
	seen   *dedupe.SQLite
	opts   Options
	busy   time.Duration
	path   string
	procs  processCheck // the looks for consumers' gone processes
	st     sqliteStmts
	stmts  stmtCache // the other statements, prepared on first use
	handed handouts  // when this process handed out its consumers' leases (PopOptions.Horizon)
	beats  beatLog   // when Pop last wrote each consumer's heartbeat
}

// OpenSQLite opens (creating if needed) the frontier in the SQLite file at
// path, with the duplicate filter in the same file. Several processes may
// open one file: writers take turns on SQLite's write lock (waiting up to
// Options.BusyTimeout), readers never wait.
//
// Durability: the file is in WAL mode with synchronous=NORMAL, so a
// committed Push or Pop survives the process being killed at any moment;
// a power loss or OS crash may lose the last transactions but never
// corrupts the file. Errors start with "frontier: open PATH:" and say what
// is wrong: not a database, locked past the busy timeout, disk full.
func OpenSQLite(ctx context.Context, path string, o Options) (*SQLite, error) {
	busy := o.BusyTimeout
	if busy <= 0 {
		busy = storage.DefaultBusyTimeout
	}
	fail := func(err error) error { return fmt.Errorf("frontier: open %s: %w", path, err) }
	db, err := storage.OpenDB(ctx, path, busy)
	if err != nil {
		return nil, fail(err)
	}
	f := &SQLite{db: db.DB, dbh: db, opts: o, busy: busy, path: path}
	if err := f.init(ctx); err != nil {
		db.Close()
		return nil, fail(storage.DescribeSQLiteError(err, busy))
	}
	return f, nil
}

func (f *SQLite) init(ctx context.Context) error {
	var v int64
	if err := f.db.QueryRowContext(ctx, `SELECT n FROM frontier_meta WHERE name = ?`, metaSchemaName).Scan(&v); err == nil && v == schemaVersion && f.hasIndex(ctx, heldIndex) {
		// In place: no write lock taken, so readers (info, dump) open
		// the file while a writer holds it.
		return f.initStores(ctx)
	}
	if err := f.initSchema(ctx); err != nil {
		return err
	}
	return f.initStores(ctx)
}

// heldIndex is the newest index: a file without it (made before it)
// gets it, in place of frontier_entries_consumer, from initSchema.
const heldIndex = "frontier_entries_held"

// hasIndex reports whether the file has the index name.
func (f *SQLite) hasIndex(ctx context.Context, name string) bool {
	var one int
	return f.db.QueryRowContext(ctx, `SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?`, name).Scan(&one) == nil
}

func (f *SQLite) initSchema(ctx context.Context) error {
	f.dbh.LockWrites()
	defer f.dbh.UnlockWrites()
	tx, err := f.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, sqliteSchema); err != nil {
		return err
	}
	var v int64
	err = tx.QueryRowContext(ctx, `SELECT n FROM frontier_meta WHERE name = ?`, metaSchemaName).Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		if _, err := tx.ExecContext(ctx, `INSERT INTO frontier_meta (name, n) VALUES (?, ?), (?, 0), (?, 0)`,
			metaSchemaName, schemaVersion, metaSeq, metaTurn); err != nil {
			return err
		}
	case err != nil:
		return err
	case v == 1:
		if _, err := tx.ExecContext(ctx, sqliteMigrateV1); err != nil {
			return err
		}
		if err := f.setMetaTx(ctx, tx, metaSchemaName, schemaVersion); err != nil {
			return err
		}
	case v != schemaVersion:
		return fmt.Errorf("frontier schema version %d, this program knows %d", v, schemaVersion)
	}
	if _, err := tx.ExecContext(ctx, sqliteIndexesV2); err != nil {
		return err
	}
	return tx.Commit()
}

func (f *SQLite) initStores(ctx context.Context) error {
	var err error
	f.seen, err = dedupe.NewSQLite(ctx, f.db, dedupe.Options{TTL: f.opts.DedupeTTL, BusyTimeout: f.busy})
	if err != nil {
		return err
	}
	f.stmts.db = f.db
	return f.st.prepare(ctx, f.db)
}

// Close implements Frontier.
func (f *SQLite) Close() error {
	f.st.close()
	f.stmts.close()
	f.seen.Close()
	return f.dbh.Close()
}

// fail wraps an error of operation op.
func (f *SQLite) fail(op string, err error) error {
	if err == nil {
		return nil
	}
	var cb errCallback
	if errors.As(err, &cb) {
		return cb.err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("frontier: %s: %w", op, err)
	}
	if strings.HasPrefix(err.Error(), "frontier: ") {
		return err
	}
	return fmt.Errorf("frontier: %s %s: %w", op, f.path, storage.DescribeSQLiteError(err, f.busy))
}

// write runs fn in one BEGIN IMMEDIATE transaction, with the stats it
// counts added in the same transaction.
func (f *SQLite) write(ctx context.Context, op string, fn func(tx *ptx, stats map[string]int64) error) error {
	f.dbh.LockWrites()
	defer f.dbh.UnlockWrites()
	defer f.stmts.preparePending(ctx)
	sqlTx, err := f.db.BeginTx(ctx, nil)
	if err != nil {
		return f.fail(op, err)
	}
	defer sqlTx.Rollback()
	tx := newPtx(sqlTx, &f.stmts)
	stats := map[string]int64{}
	if err := fn(tx, stats); err != nil {
		return f.fail(op, err)
	}
	for name, n := range stats {
		if n == 0 {
			continue
		}
		if _, err := tx.StmtContext(ctx, f.st.addStat).ExecContext(ctx, name, n); err != nil {
			return f.fail(op, err)
		}
	}
	return f.fail(op, tx.Commit())
}

// read runs fn in one read transaction: a consistent snapshot while
// writers go on.
func (f *SQLite) read(ctx context.Context, op string, fn func(tx *ptx) error) error {
	defer f.stmts.preparePending(ctx)
	tx, err := f.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return f.fail(op, err)
	}
	defer tx.Rollback()
	return f.fail(op, fn(newPtx(tx, &f.stmts)))
}

// sqliteStmts are the statements of the hot paths, prepared once.
type sqliteStmts struct {
	addStat, popHead, nextTop, insertEntry, ackEntry, queueByID, queueByHost, insertQueue,
	updateQueue, updateQueueTop, addQueueCounts, crawlByName, getMeta, setMeta, releaseEntry *sql.Stmt
}

func (s *sqliteStmts) prepare(ctx context.Context, db *sql.DB) error {
	for _, p := range []struct {
		dst **sql.Stmt
		sql string
	}{
		{&s.addStat, `INSERT INTO frontier_stats (name, n) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET n = n + excluded.n`},
		{&s.popHead, `UPDATE frontier_entries SET state = 1, lease = ?, deadline = ?, consumer = ?
			WHERE id = (SELECT id FROM frontier_entries WHERE queue = ? AND state = 0 ORDER BY prio DESC, ord LIMIT 1)
			RETURNING id, prio, expiries, raw`},
		{&s.nextTop, `SELECT prio FROM frontier_entries WHERE queue = ? AND state = 0 ORDER BY prio DESC, ord LIMIT 1`},
		{&s.insertEntry, `INSERT INTO frontier_entries (id, queue, prio, ord, raw) VALUES (?, ?, ?, ?, ?)`},
		{&s.ackEntry, `DELETE FROM frontier_entries WHERE id = ? AND lease = ? AND lease != 0 RETURNING queue, state, prio`},
		{&s.queueByID, `SELECT crawl, host, queued, in_flight, dead, top, turn FROM frontier_queues WHERE id = ?`},
		{&s.queueByHost, `SELECT id, queued, in_flight, dead, top, turn FROM frontier_queues WHERE crawl = ? AND host = ?`},
		{&s.insertQueue, `INSERT INTO frontier_queues (crawl, host, turn) VALUES (?, ?, ?) RETURNING id`},
		{&s.updateQueue, `UPDATE frontier_queues SET queued = ?, in_flight = ?, dead = ?, top = ?, turn = ? WHERE id = ?`},
		{&s.updateQueueTop, `UPDATE frontier_queues SET queued = ?, in_flight = ?, dead = ?,
			top = (SELECT prio FROM frontier_entries WHERE queue = ? AND state = 0 ORDER BY prio DESC, ord LIMIT 1), turn = ? WHERE id = ?`},
		{&s.addQueueCounts, `UPDATE frontier_queues SET queued = queued + ?, in_flight = in_flight + ?, dead = dead + ?,
			top = CASE WHEN ? THEN coalesce((SELECT prio FROM frontier_entries WHERE queue = ? AND state = 0 ORDER BY prio DESC, ord LIMIT 1), 0) ELSE top END
			WHERE id = ?`},
		{&s.getMeta, `SELECT n FROM frontier_meta WHERE name = ?`},
		{&s.releaseEntry, `UPDATE frontier_entries SET state = 0, deadline = 0, lease = 0, consumer = ''
			WHERE id = ? AND lease = ? AND lease != 0 AND state = 1 RETURNING queue, prio`},
		{&s.setMeta, `UPDATE frontier_meta SET n = ? WHERE name = ?`},
		{&s.crawlByName, `SELECT id, appid, expires, state FROM frontier_crawls WHERE crawlid = ?`},
	} {
		st, err := db.PrepareContext(ctx, p.sql)
		if err != nil {
			return err
		}
		*p.dst = st
	}
	return nil
}

func (s *sqliteStmts) close() {
	for _, st := range []*sql.Stmt{s.addStat, s.popHead, s.nextTop, s.insertEntry, s.ackEntry, s.queueByID, s.queueByHost,
		s.insertQueue, s.updateQueue, s.updateQueueTop, s.addQueueCounts, s.crawlByName, s.getMeta, s.setMeta, s.releaseEntry} {
		if st != nil {
			st.Close()
		}
	}
}

// queueRow is a frontier_queues row being changed within a transaction.
type queueRow struct {
	id                     int64
	crawl                  int64
	host                   string
	queued, inFlight, dead int64
	top, turn              int64
	dirty                  bool
	// staleTop: top is only an upper bound of the head's priority (the head
	// was popped or acked); save recomputes it in SQL, Pop lazily.
	staleTop bool
}

// queues caches the queue rows a transaction touches and writes them back.
type queues map[int64]*queueRow

func (qs queues) get(ctx context.Context, tx *ptx, f *SQLite, id int64) (*queueRow, error) {
	if q, ok := qs[id]; ok {
		return q, nil
	}
	q := &queueRow{id: id}
	err := tx.StmtContext(ctx, f.st.queueByID).QueryRowContext(ctx, id).Scan(&q.crawl, &q.host, &q.queued, &q.inFlight, &q.dead, &q.top, &q.turn)
	if err != nil {
		return nil, err
	}
	qs[id] = q
	return q, nil
}

func (qs queues) save(ctx context.Context, tx *ptx, f *SQLite) error {
	var upd *sql.Stmt
	for _, q := range qs {
		if !q.dirty {
			continue
		}
		if q.staleTop && q.queued > 0 {
			// The row gets the real top; the cached q.top stays an upper
			// bound, still marked stale.
			if _, err := tx.StmtContext(ctx, f.st.updateQueueTop).ExecContext(ctx, q.queued, q.inFlight, q.dead, q.id, q.turn, q.id); err != nil {
				return err
			}
		} else {
			if upd == nil {
				upd = tx.StmtContext(ctx, f.st.updateQueue)
			}
			if _, err := upd.ExecContext(ctx, q.queued, q.inFlight, q.dead, q.top, q.turn, q.id); err != nil {
				return err
			}
		}
		q.dirty = false
	}
	return nil
}

// requeued notes that an entry of priority prio joined queue q.
func (q *queueRow) requeued(prio int64) {
	if q.queued == 0 {
		q.top, q.staleTop = prio, false
	} else if prio > q.top {
		q.top = prio
	}
	q.queued++
	q.dirty = true
}

func (f *SQLite) getMeta(ctx context.Context, tx *ptx, name string) (int64, error) {
	var n int64
	err := tx.StmtContext(ctx, f.st.getMeta).QueryRowContext(ctx, name).Scan(&n)
	return n, err
}

// setMetaTx sets a meta value without the prepared statements (init).
func (f *SQLite) setMetaTx(ctx context.Context, tx *sql.Tx, name string, n int64) error {
	_, err := tx.ExecContext(ctx, `UPDATE frontier_meta SET n = ? WHERE name = ?`, n, name)
	return err
}

func (f *SQLite) setMeta(ctx context.Context, tx *ptx, name string, n int64) error {
	_, err := tx.StmtContext(ctx, f.st.setMeta).ExecContext(ctx, n, name)
	return err
}

// Counts implements Frontier.
func (f *SQLite) Counts(ctx context.Context) (Counts, error) {
	var c Counts
	err := f.read(ctx, "counts", func(tx *ptx) error {
		return tx.QueryRowContext(ctx, `SELECT coalesce(sum(queued), 0), coalesce(sum(in_flight), 0), coalesce(sum(dead), 0) FROM frontier_queues`).
			Scan(&c.Queued, &c.InFlight, &c.Dead)
	})
	return c, err
}

// Done implements Frontier.
func (f *SQLite) Done(ctx context.Context) (bool, error) {
	var busy bool
	err := f.read(ctx, "done", func(tx *ptx) error {
		return tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM frontier_queues WHERE queued > 0 OR in_flight > 0)`).Scan(&busy)
	})
	return !busy, err
}

// Stats implements Frontier.
func (f *SQLite) Stats(ctx context.Context) (map[string]int64, error) {
	out := map[string]int64{}
	err := f.read(ctx, "stats", func(tx *ptx) error {
		rows, err := tx.QueryContext(ctx, `SELECT name, n FROM frontier_stats WHERE n != 0`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var name string
			var n int64
			if err := rows.Scan(&name, &n); err != nil {
				return err
			}
			out[name] = n
		}
		return rows.Err()
	})
	return out, err
}

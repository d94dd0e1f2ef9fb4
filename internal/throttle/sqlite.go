package throttle

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/crawlutils/crawlutils/internal/storage"
)

// SQLite is a Store in an SQLite file: one row per key in the table
// throttle_slots, so the file can be the frontier's (cqueue) or the
// seen-set's (cdedupe) too. Every reservation is one INSERT … ON CONFLICT
// DO UPDATE … RETURNING statement in autocommit: SQLite runs it under its
// write lock, so processes sharing the file never reserve the same slot.
// The clock is the caller's: processes sharing a file share a machine, and
// its clock.
type SQLite struct {
	db   *storage.DB
	path string
	busy time.Duration

	mu    sync.Mutex
	stmts map[int]*sql.Stmt // the reservation statement by number of keys
}

// sqliteSchema is the table. tat_us is the schedule (GCRA's theoretical
// arrival time: the slot the key's next request takes, burst aside) and
// hold_us the key's hold (0: none); the other columns are the last
// reservation's request (now_us … max_wait_us) and answer (base_us,
// granted), kept in the row so that the one statement can both compute
// and return them. A row made by a hold alone has interval_us 0: no
// reservation has named the key's rate yet.
const sqliteSchema = `CREATE TABLE IF NOT EXISTS throttle_slots (
	key         TEXT PRIMARY KEY,
	tat_us      INTEGER NOT NULL,
	base_us     INTEGER NOT NULL,
	granted     INTEGER NOT NULL,
	now_us      INTEGER NOT NULL,
	asked       INTEGER NOT NULL,
	interval_us INTEGER NOT NULL,
	tau_us      INTEGER NOT NULL,
	max_wait_us INTEGER NOT NULL,
	hold_us     INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID`

// sqliteAddHold brings a table made before holds up to date. Programs
// that predate holds go on working with it: their statements name their
// columns, and a new row's hold_us is 0.
const sqliteAddHold = `ALTER TABLE throttle_slots ADD COLUMN hold_us INTEGER NOT NULL DEFAULT 0`

// OpenSQLite opens (creating if needed) the schedule in the SQLite file at
// path, which other crawlutils stores may share. Errors start with
// "throttle: open PATH:" and say what is wrong: not a database, locked
// past the busy timeout, disk full.
func OpenSQLite(ctx context.Context, path string, o Options) (*SQLite, error) {
	busy := o.BusyTimeout
	if busy <= 0 {
		busy = storage.DefaultBusyTimeout
	}
	fail := func(err error) error { return fmt.Errorf("throttle: open %s: %w", path, err) }
	db, err := storage.OpenDB(ctx, path, busy)
	if err != nil {
		return nil, fail(err)
	}
	s := &SQLite{db: db, path: path, busy: busy, stmts: map[int]*sql.Stmt{}}
	if err := initSQLite(ctx, db); err != nil {
		db.Close()
		return nil, fail(storage.DescribeSQLiteError(err, busy))
	}
	return s, nil
}

// initSQLite makes the table, or adds hold_us to one made before holds.
// It reads first: when the table is up to date no write lock is taken, so
// a process opening the file while another writes does not wait. Two
// processes may add the column at once: the second one's ALTER fails,
// and finds the column there.
func initSQLite(ctx context.Context, db *storage.DB) error {
	hasHold := func() (bool, error) {
		var n int
		err := db.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('throttle_slots') WHERE name = 'hold_us'`).Scan(&n)
		return n > 0, err
	}
	ok, err := hasHold()
	if err != nil || ok {
		return err
	}
	if _, err := db.ExecContext(ctx, sqliteSchema); err != nil {
		return err
	}
	if ok, err := hasHold(); err != nil || ok {
		return err
	}
	_, err = db.ExecContext(ctx, sqliteAddHold)
	if err != nil {
		if ok, err2 := hasHold(); err2 == nil && ok {
			return nil
		}
	}
	return err
}

// Close implements Store.
func (s *SQLite) Close() error {
	s.mu.Lock()
	for _, st := range s.stmts {
		st.Close()
	}
	s.stmts = nil
	s.mu.Unlock()
	return s.db.Close()
}

func (s *SQLite) wrap(op string, err error) error {
	return fmt.Errorf("throttle: %s %s: %w", op, s.path, storage.DescribeSQLiteError(err, s.busy))
}

// sqlT0 is reserve's T for a known key: max(tat, now, hold + tau), the
// hold counting only when there is one.
const sqlT0 = `max(tat_us, excluded.now_us, CASE WHEN hold_us > 0 THEN hold_us + excluded.tau_us ELSE 0 END)`

// chunkSizes are the sizes of the statements a reservation is cut into,
// largest first: a few prepared statements serve any batch.
var chunkSizes = []int{256, 32, 8, 1}

// reserveSQL returns the statement reserving n keys: 6 parameters per key
// (key, now, asked, interval, tau, max wait), all in microseconds. The
// SELECT computes the row of a new key; DO UPDATE the row of a known one,
// from its old tat_us and hold_us (every expression of an UPDATE's SET
// sees the old row). The CASEs are reserve's arithmetic, sqlT0 its T;
// integer division truncates toward zero, so a negative numerator is
// handled before it.
func reserveSQL(n int) string {
	const granted = `CASE WHEN excluded.max_wait_us < 0 THEN excluded.asked
		ELSE min(excluded.asked, CASE WHEN excluded.max_wait_us - (` + sqlT0 + ` - excluded.tau_us - excluded.now_us) < 0 THEN 0
			ELSE (excluded.max_wait_us - (` + sqlT0 + ` - excluded.tau_us - excluded.now_us)) / excluded.interval_us + 1 END) END`
	var b strings.Builder
	b.WriteString(`INSERT INTO throttle_slots (key, now_us, asked, interval_us, tau_us, max_wait_us, tat_us, base_us, granted)
SELECT k, n, a, i, t, m, n + g * i, n - t, g FROM (
	SELECT column1 AS k, column2 AS n, column3 AS a, column4 AS i, column5 AS t, column6 AS m,
		CASE WHEN column6 < 0 THEN column3 ELSE min(column3, (column6 + column5) / column4 + 1) END AS g
	FROM (VALUES `)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?, ?, ?, ?, ?, ?)")
	}
	b.WriteString(`)) WHERE true
ON CONFLICT (key) DO UPDATE SET
	granted = ` + granted + `,
	tat_us = CASE WHEN (` + granted + `) > 0 THEN ` + sqlT0 + ` + (` + granted + `) * excluded.interval_us ELSE tat_us END,
	base_us = ` + sqlT0 + ` - excluded.tau_us,
	now_us = excluded.now_us, asked = excluded.asked, interval_us = excluded.interval_us,
	tau_us = excluded.tau_us, max_wait_us = excluded.max_wait_us
RETURNING key, base_us, granted`)
	return b.String()
}

func (s *SQLite) stmt(ctx context.Context, n int) (*sql.Stmt, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.stmts[n]; st != nil {
		return st, nil
	}
	st, err := s.db.PrepareContext(ctx, reserveSQL(n))
	if err != nil {
		return nil, err
	}
	s.stmts[n] = st
	return st, nil
}

// Reserve implements Store: one statement per chunk of keys, each atomic.
func (s *SQLite) Reserve(ctx context.Context, reqs []Request, now time.Time) (Reply, error) {
	if err := checkRequests(reqs); err != nil {
		return Reply{}, err
	}
	nowUS := micros(now)
	reply := Reply{Now: time.UnixMicro(nowUS), Grants: make([]Grant, len(reqs))}
	for start := 0; start < len(reqs); {
		n := chunkSizes[len(chunkSizes)-1]
		for _, c := range chunkSizes {
			if len(reqs)-start >= c {
				n = c
				break
			}
		}
		if err := s.reserveChunk(ctx, reqs[start:start+n], nowUS, reply.Grants[start:start+n]); err != nil {
			return Reply{}, s.wrap("reserve", err)
		}
		start += n
	}
	return reply, nil
}

func (s *SQLite) reserveChunk(ctx context.Context, reqs []Request, now int64, out []Grant) error {
	st, err := s.stmt(ctx, len(reqs))
	if err != nil {
		return err
	}
	args := make([]any, 0, 6*len(reqs))
	index := make(map[string]int, len(reqs))
	for i, r := range reqs {
		index[r.Key] = i
		args = append(args, r.Key, now, r.N, int64(r.Rate.Interval/time.Microsecond),
			int64(r.Rate.tolerance()/time.Microsecond), maxWaitMicros(r.MaxWait))
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	got := 0
	for rows.Next() {
		var key string
		var base int64
		var granted int
		if err := rows.Scan(&key, &base, &granted); err != nil {
			return err
		}
		i, ok := index[key]
		if !ok {
			return fmt.Errorf("the reservation returned key %q, not asked for", key)
		}
		out[i] = Grant{Granted: granted, Base: time.Duration(base-now) * time.Microsecond, Interval: reqs[i].Rate.Interval}
		got++
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if got != len(reqs) {
		return fmt.Errorf("the reservation returned %d rows for %d keys", got, len(reqs))
	}
	return nil
}

// holdSQL sets a key's hold, only ever later. A key with no row gets one
// that says nothing else: tat_us 0 is a free schedule, interval_us 0 a
// rate not named yet.
const holdSQL = `INSERT INTO throttle_slots (key, tat_us, base_us, granted, now_us, asked, interval_us, tau_us, max_wait_us, hold_us)
VALUES (?, 0, 0, 0, ?, 0, 0, 0, 0, ?)
ON CONFLICT (key) DO UPDATE SET hold_us = max(hold_us, excluded.hold_us)`

// Hold implements Store: one statement, in autocommit.
func (s *SQLite) Hold(ctx context.Context, key string, until, now time.Time) error {
	untilUS, nowUS, ok := holdMicros(key, until, now)
	if !ok {
		return nil
	}
	if _, err := s.db.ExecContext(ctx, holdSQL, key, nowUS, untilUS); err != nil {
		return s.wrap("hold", err)
	}
	return nil
}

// holdsChunk is the most keys one Holds statement names.
const holdsChunk = 500

// Holds implements Store: one read per chunk of keys.
func (s *SQLite) Holds(ctx context.Context, keys []string, now time.Time) (map[string]time.Duration, error) {
	nowUS := micros(now)
	held := map[string]time.Duration{}
	for start := 0; start < len(keys); start += holdsChunk {
		chunk := keys[start:min(start+holdsChunk, len(keys))]
		args := make([]any, 0, 1+len(chunk))
		args = append(args, nowUS)
		for _, k := range chunk {
			args = append(args, k)
		}
		q := `SELECT key, hold_us FROM throttle_slots WHERE hold_us > ? AND key IN (?` + strings.Repeat(",?", len(chunk)-1) + `)`
		if err := s.holdsQuery(ctx, q, args, nowUS, held); err != nil {
			return nil, s.wrap("read holds", err)
		}
	}
	return held, nil
}

func (s *SQLite) holdsQuery(ctx context.Context, q string, args []any, nowUS int64, held map[string]time.Duration) error {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var key string
		var hold int64
		if err := rows.Scan(&key, &hold); err != nil {
			return err
		}
		held[key] = time.Duration(hold-nowUS) * time.Microsecond
	}
	return rows.Err()
}

// purgeSQL forgets the keys whose schedule is free at ?1 and whose hold,
// if any, changes no answer from then on: hold + tau before ?1, tau being
// the last reservation's, or ?2 (HoldMargin) when none named a rate.
const purgeSQL = `DELETE FROM throttle_slots WHERE tat_us < ?1
	AND (hold_us = 0 OR hold_us + CASE WHEN interval_us > 0 THEN tau_us ELSE ?2 END < ?1)`

// Purge implements Store.
func (s *SQLite) Purge(ctx context.Context, before time.Time) (int, error) {
	res, err := s.db.ExecContext(ctx, purgeSQL, micros(before), int64(HoldMargin/time.Microsecond))
	if err != nil {
		return 0, s.wrap("purge", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// Len implements Store.
func (s *SQLite) Len(ctx context.Context) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM throttle_slots`).Scan(&n); err != nil {
		return 0, s.wrap("count", err)
	}
	return n, nil
}

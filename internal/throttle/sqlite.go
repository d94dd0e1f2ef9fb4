package throttle

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/crawlutils/crawlutils/internal/dedupe"
)

// SQLite is a Store in an SQLite file: one row per key in the table
// throttle_slots, so the file can be the frontier's (cqueue) or the
// seen-set's (cdedupe) too. Every reservation is one INSERT … ON CONFLICT
// DO UPDATE … RETURNING statement in autocommit: SQLite runs it under its
// write lock, so processes sharing the file never reserve the same slot.
// The clock is the caller's: processes sharing a file share a machine, and
// its clock.
type SQLite struct {
	db   *dedupe.DB
	path string
	busy time.Duration

	mu    sync.Mutex
	stmts map[int]*sql.Stmt // the reservation statement by number of keys
}

// sqliteSchema is the table. tat_us is the schedule (GCRA's theoretical
// arrival time: the slot the key's next request takes, burst aside); the
// other columns are the last reservation's request (now_us … max_wait_us)
// and answer (base_us, granted), kept in the row so that the one statement
// can both compute and return them.
const sqliteSchema = `CREATE TABLE IF NOT EXISTS throttle_slots (
	key         TEXT PRIMARY KEY,
	tat_us      INTEGER NOT NULL,
	base_us     INTEGER NOT NULL,
	granted     INTEGER NOT NULL,
	now_us      INTEGER NOT NULL,
	asked       INTEGER NOT NULL,
	interval_us INTEGER NOT NULL,
	tau_us      INTEGER NOT NULL,
	max_wait_us INTEGER NOT NULL
) WITHOUT ROWID`

// OpenSQLite opens (creating if needed) the schedule in the SQLite file at
// path, which other crawlutils stores may share. Errors start with
// "throttle: open PATH:" and say what is wrong: not a database, locked
// past the busy timeout, disk full.
func OpenSQLite(ctx context.Context, path string, o Options) (*SQLite, error) {
	busy := o.BusyTimeout
	if busy <= 0 {
		busy = dedupe.DefaultBusyTimeout
	}
	fail := func(err error) error { return fmt.Errorf("throttle: open %s: %w", path, err) }
	db, err := dedupe.OpenDB(ctx, path, busy)
	if err != nil {
		return nil, fail(err)
	}
	s := &SQLite{db: db, path: path, busy: busy, stmts: map[int]*sql.Stmt{}}
	// Read first: when the table is there no write lock is taken, so a
	// process opening the file while another writes does not wait.
	var n int
	err = db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'throttle_slots'`).Scan(&n)
	if err == nil && n == 0 {
		_, err = db.ExecContext(ctx, sqliteSchema)
	}
	if err != nil {
		db.Close()
		return nil, fail(dedupe.DescribeSQLiteError(err, busy))
	}
	return s, nil
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
	return fmt.Errorf("throttle: %s %s: %w", op, s.path, dedupe.DescribeSQLiteError(err, s.busy))
}

// chunkSizes are the sizes of the statements a reservation is cut into,
// largest first: a few prepared statements serve any batch.
var chunkSizes = []int{256, 32, 8, 1}

// reserveSQL returns the statement reserving n keys: 6 parameters per key
// (key, now, asked, interval, tau, max wait), all in microseconds. The
// SELECT computes the row of a new key; DO UPDATE the row of a known one,
// from its old tat_us (every expression of an UPDATE's SET sees the old
// row). The CASEs are reserve's arithmetic; integer division truncates
// toward zero, so a negative numerator is handled before it.
func reserveSQL(n int) string {
	const granted = `CASE WHEN excluded.max_wait_us < 0 THEN excluded.asked
		ELSE min(excluded.asked, CASE WHEN excluded.max_wait_us - (max(tat_us, excluded.now_us) - excluded.tau_us - excluded.now_us) < 0 THEN 0
			ELSE (excluded.max_wait_us - (max(tat_us, excluded.now_us) - excluded.tau_us - excluded.now_us)) / excluded.interval_us + 1 END) END`
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
	tat_us = CASE WHEN (` + granted + `) > 0 THEN max(tat_us, excluded.now_us) + (` + granted + `) * excluded.interval_us ELSE tat_us END,
	base_us = max(tat_us, excluded.now_us) - excluded.tau_us,
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

// Purge implements Store.
func (s *SQLite) Purge(ctx context.Context, before time.Time) (int, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM throttle_slots WHERE tat_us < ?`, micros(before))
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

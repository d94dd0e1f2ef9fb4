package cexport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"time"

	"github.com/crawlutils/crawlutils/internal/storage"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// --db-retry: a database that goes away mid-run (a PostgreSQL server
// restarted or unreachable, an SQLite file locked by another process past
// its busy timeout) is waited for. The batch being written is written again
// after a backoff (100 ms doubling to 2 s, with jitter), on a new
// connection, until it commits or the --db-retry time has passed since the
// failure; then the run fails (exit 1) and the acks held for the batch's
// items are not passed on, so the frontier hands those pages out again.
// While cexport waits it reads no input: the pipe before it fills and the
// loop waits too. A database that cannot be reached at the start is not
// waited for: that is a mistake to report at once.
//
// A batch is written again whole: with --key that is an upsert, and
// harmless; without one, a batch whose COMMIT reached the server but whose
// answer was lost is in the table twice.

// DefaultDBRetry is --db-retry's default, as long as the Redis tools ride
// out an outage (CRAWLUTILS_REDIS_RETRY).
const DefaultDBRetry = time.Minute

// Backoff between two attempts.
const (
	retryFirst = 100 * time.Millisecond
	retryMax   = 2 * time.Second
)

// writeRetrying writes rows, retrying while the database is unreachable,
// for s.retry at most.
func (s *tableSink) writeRetrying(rows []row) error {
	reject := func(r *row, err error) { s.reject(r.line, err) }
	err := s.drv.write(s.ctx, s.tbl, s.key, rows, reject)
	if err == nil || s.retry <= 0 || !s.drv.transient(err) {
		return err
	}
	start := time.Now()
	s.warn("%s: %v; retrying for %v (--db-retry)", s.target.display, err, s.retry)
	wait := retryFirst
	for attempt := 2; ; attempt++ {
		left := s.retry - time.Since(start)
		if left <= 0 {
			return fmt.Errorf("%w (gave up after %v of retries, --db-retry %v)", err, time.Since(start).Round(time.Millisecond), s.retry)
		}
		time.Sleep(min(left, wait/2+rand.N(wait/2+1)))
		wait = min(2*wait, retryMax)
		if err = s.drv.reconnect(s.ctx); err == nil {
			err = s.drv.write(s.ctx, s.tbl, s.key, rows, reject)
		}
		if err == nil {
			s.warn("%s: written again after %v (attempt %d)", s.target.display, time.Since(start).Round(time.Millisecond), attempt)
			return nil
		}
		if !s.drv.transient(err) {
			return err
		}
	}
}

// pgTransient reports whether err means the server could not be reached or
// is going away (a broken or refused connection, a shutdown, too many
// connections, a serialization failure), not that the data or the schema
// is wrong.
func pgTransient(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		c := pe.Code
		return strings.HasPrefix(c, "08") || strings.HasPrefix(c, "53") || strings.HasPrefix(c, "40") ||
			c == "57P01" || c == "57P02" || c == "57P03"
	}
	var ne net.Error
	var ce *pgconn.ConnectError
	return errors.As(err, &ne) || errors.As(err, &ce) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		pgconn.SafeToRetry(err) || strings.Contains(err.Error(), "conn closed")
}

func (d *postgresDriver) transient(err error) bool { return pgTransient(err) }

// reconnect replaces a broken connection.
func (d *postgresDriver) reconnect(ctx context.Context) error {
	if !d.conn.IsClosed() && d.conn.Ping(ctx) == nil {
		return nil
	}
	d.conn.Close(ctx)
	conn, err := pgx.ConnectConfig(ctx, d.cfg)
	if err != nil {
		return fmt.Errorf("cannot connect to the PostgreSQL server at %s: %w", pgServer(d.cfg), connectCause(err))
	}
	d.conn = conn
	return nil
}

// transient: the file is locked by another process past the busy timeout.
func (d *sqliteDriver) transient(err error) bool { return errors.Is(err, storage.ErrLocked) }

// reconnect: the connection to a file does not break.
func (d *sqliteDriver) reconnect(context.Context) error { return nil }

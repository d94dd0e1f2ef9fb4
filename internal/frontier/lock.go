package frontier

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// metaLock begins the crawl metadata key of a crawl's run lock on one
// machine (lockKey): the holder, a tab, and the lock's expiry in Unix
// milliseconds.
const metaLock = "run_lock"

// lockKey is the metadata key of the run lock holder (a LockHolder)
// takes: one for each machine. A second run of a crawl on the same
// machine (an overlapping cron job) is refused, while a run on another
// machine joins the crawl on a shared frontier (a Redis): the same
// command on every machine is how a crawl spans machines.
func lockKey(holder string) string {
	if c, ok := parseHolder(holder); ok && c.Host != "" {
		return metaLock + "@" + c.Host
	}
	return metaLock
}

// parseLock splits a run lock's value into its holder and expiry.
func parseLock(v string) (holder string, expires int64) {
	h, ms, ok := strings.Cut(v, "\t")
	if !ok {
		return v, 0
	}
	n, _ := strconv.ParseInt(ms, 10, 64)
	return h, n
}

// lockValue is a run lock's value.
func lockValue(holder string, ttl time.Duration, now time.Time) string {
	return holder + "\t" + strconv.FormatInt(now.Add(ttl).UnixMilli(), 10)
}

// mayLock reports whether holder may take the lock whose value is cur.
func mayLock(cur, holder, steal string, now time.Time) bool {
	if cur == "" {
		return true
	}
	h, exp := parseLock(cur)
	return h == holder || (steal != "" && h == steal) || exp <= now.UnixMilli()
}

// LockCrawl implements Frontier.
func (f *SQLite) LockCrawl(ctx context.Context, crawlID, holder, steal string, ttl time.Duration, now time.Time) (string, bool, error) {
	var cur string
	var ok bool
	err := f.write(ctx, "lock crawl", func(tx *ptx, _ map[string]int64) error {
		if _, err := tx.ExecContext(ctx, crawlMetaTable); err != nil {
			return err
		}
		var v string
		err := tx.QueryRowContext(ctx, `SELECT value FROM frontier_crawl_meta WHERE crawlid = ? AND key = ?`, crawlID, lockKey(holder)).Scan(&v)
		if err != nil && !isNoRows(err) {
			return err
		}
		cur, _ = parseLock(v)
		if ok = mayLock(v, holder, steal, now); !ok {
			return nil
		}
		cur = holder
		_, err = tx.ExecContext(ctx, `INSERT INTO frontier_crawl_meta (crawlid, key, value) VALUES (?, ?, ?)
			ON CONFLICT (crawlid, key) DO UPDATE SET value = excluded.value`, crawlID, lockKey(holder), lockValue(holder, ttl, now))
		return err
	})
	return cur, ok, err
}

// UnlockCrawl implements Frontier.
func (f *SQLite) UnlockCrawl(ctx context.Context, crawlID, holder string) error {
	return f.write(ctx, "unlock crawl", func(tx *ptx, _ map[string]int64) error {
		if _, err := tx.ExecContext(ctx, crawlMetaTable); err != nil {
			return err
		}
		var v string
		err := tx.QueryRowContext(ctx, `SELECT value FROM frontier_crawl_meta WHERE crawlid = ? AND key = ?`, crawlID, lockKey(holder)).Scan(&v)
		if err != nil {
			if isNoRows(err) {
				return nil
			}
			return err
		}
		if h, _ := parseLock(v); h != holder {
			return nil
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM frontier_crawl_meta WHERE crawlid = ? AND key = ?`, crawlID, lockKey(holder))
		return err
	})
}

func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }

// LockHolder names this process as a run lock's holder: host name,
// process id and boot id, separated by spaces.
func LockHolder() string {
	c := ThisMachine()
	return fmt.Sprintf("%s %d %s", c.Host, c.PID, c.Boot)
}

// LockHolderGone reports whether holder (a LockHolder) ran on this
// machine and boot and its process is gone: its lock may be taken at once.
func LockHolderGone(holder string) bool {
	c, ok := parseHolder(holder)
	return ok && processGone(c)
}

// DescribeLockHolder says who holder is, for a message: "pid 123 on
// host".
func DescribeLockHolder(holder string) string {
	c, ok := parseHolder(holder)
	if !ok {
		return holder
	}
	return fmt.Sprintf("pid %d on %s", c.PID, c.Host)
}

func parseHolder(h string) (Consumer, bool) {
	f := strings.Fields(h)
	if len(f) < 2 {
		return Consumer{}, false
	}
	pid, err := strconv.Atoi(f[1])
	if err != nil {
		return Consumer{}, false
	}
	c := Consumer{Host: f[0], PID: pid}
	if len(f) > 2 {
		c.Boot = f[2]
	}
	return c, true
}

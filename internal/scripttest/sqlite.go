package scripttest

import (
	"context"
	"database/sql"
	"net/url"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
	_ "modernc.org/sqlite" // the driver the commands use
)

// sqliteLocks are the locks (write or read) a script holds, by file: the test
// process holds them, so to the commands of the script (processes of their
// own) the file is locked by another process.
type sqliteLocks struct {
	mu    sync.Mutex
	conns map[string]*sqliteLock
}

type sqliteLock struct {
	db   *sql.DB
	conn *sql.Conn
}

type locksKey struct{}

func openSQLite(path string) (*sql.DB, error) {
	return sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?_pragma=busy_timeout(10000)")
}

// sqliteLockCmd is "sqlite-lock [-read] FILE": take SQLite's write lock on
// FILE (BEGIN IMMEDIATE), or with -read hold a read transaction, until
// sqlite-unlock FILE or the end of the script. It returns once the lock is
// held. A reader does not block writers (WAL), but keeps the file's WAL
// and shared memory in use, as any other process using the file does.
func sqliteLockCmd(ts *testscript.TestScript, neg bool, args []string) {
	read := len(args) == 2 && args[0] == "-read"
	if read {
		args = args[1:]
	}
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sqlite-lock [-read] FILE")
	}
	locks := ts.Value(locksKey{}).(*sqliteLocks)
	path := ts.MkAbs(args[0])
	locks.mu.Lock()
	defer locks.mu.Unlock()
	if locks.conns[path] != nil {
		ts.Fatalf("sqlite-lock %s: already held", args[0])
	}
	db, err := openSQLite(path)
	ts.Check(err)
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err == nil && read {
		var n int
		if _, err = conn.ExecContext(ctx, "BEGIN"); err == nil {
			err = conn.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&n)
		}
	} else if err == nil {
		_, err = conn.ExecContext(ctx, "BEGIN IMMEDIATE")
	}
	if err != nil {
		db.Close()
		ts.Fatalf("sqlite-lock %s: %v", args[0], err)
	}
	locks.conns[path] = &sqliteLock{db: db, conn: conn}
}

// sqliteUnlockCmd is "sqlite-unlock FILE": roll back the transaction of
// sqlite-lock FILE and close its connection.
func sqliteUnlockCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sqlite-unlock FILE")
	}
	locks := ts.Value(locksKey{}).(*sqliteLocks)
	path := ts.MkAbs(args[0])
	locks.mu.Lock()
	l := locks.conns[path]
	delete(locks.conns, path)
	locks.mu.Unlock()
	if l == nil {
		ts.Fatalf("sqlite-unlock %s: not locked", args[0])
	}
	ts.Check(l.release())
}

func (l *sqliteLock) release() error {
	_, err := l.conn.ExecContext(context.Background(), "ROLLBACK")
	l.conn.Close()
	if cerr := l.db.Close(); err == nil {
		err = cerr
	}
	return err
}

// releaseAll ends the locks a script left held.
func (locks *sqliteLocks) releaseAll() {
	locks.mu.Lock()
	defer locks.mu.Unlock()
	for path, l := range locks.conns {
		l.release()
		delete(locks.conns, path)
	}
}

// sqliteCheckCmd is "sqlite-check FILE": open FILE and run PRAGMA
// integrity_check; it fails unless SQLite answers "ok". (Opening recovers
// a WAL left behind, as any later user of the file would.)
func sqliteCheckCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sqlite-check FILE")
	}
	db, err := openSQLite(ts.MkAbs(args[0]))
	ts.Check(err)
	defer db.Close()
	rows, err := db.Query("PRAGMA integrity_check")
	if err != nil {
		ts.Fatalf("sqlite-check %s: %v", args[0], err)
	}
	defer rows.Close()
	var report []string
	for rows.Next() {
		var s string
		ts.Check(rows.Scan(&s))
		report = append(report, s)
	}
	if err := rows.Err(); err != nil {
		ts.Fatalf("sqlite-check %s: %v", args[0], err)
	}
	if len(report) != 1 || report[0] != "ok" {
		ts.Fatalf("sqlite-check %s: integrity_check: %q", args[0], report)
	}
}

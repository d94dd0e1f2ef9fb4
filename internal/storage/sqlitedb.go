package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite"
)

// DefaultBusyTimeout is how long a writer waits for another process's
// write transaction before giving up (SQLite's busy_timeout).
const DefaultBusyTimeout = 5 * time.Second

// DB is an SQLite database opened by OpenDB: a *sql.DB shared by every
// OpenDB of the same file in this process, plus the goroutine that
// checkpoints its WAL. Close lets go of it; the last Close stops both.
type DB struct {
	*sql.DB
	file   *openFile
	closed sync.Once
}

// openFile is one SQLite file open in this process: its pool, the
// checkpointer's own connection, and the mutex its writers take turns on.
type openFile struct {
	key    fileKey
	db     *sql.DB
	ckpt   *sql.DB // the checkpointer's own connection
	watch  *sql.DB // DataVersion's own connection, opened at its first use
	writes sync.Mutex
	refs   int         // the DBs open on it (under openFiles' lock)
	fi     os.FileInfo // the file as opened (nil: could not stat it)
	cancel context.CancelFunc
	done   chan struct{}
}

// fileKey names an open file: its absolute path (symbolic links
// resolved when it exists) and the busy timeout its connections wait.
type fileKey struct {
	path string
	busy time.Duration
}

// openFiles are the SQLite files open in this process, so that the
// commands running in one process (cqueue crawl runs pop and push inside
// its own) share one pool, one checkpointer and one write turn per file.
var openFiles = struct {
	sync.Mutex
	m map[fileKey]*openFile
}{m: map[fileKey]*openFile{}}

// OpenDB opens (creating it if needed) the SQLite file at path the way every
// crawlutils store shares it:
//
//   - WAL journal: readers never block the writer, and several processes
//     can use the file at once;
//   - synchronous=NORMAL: a committed transaction survives the process
//     being killed at any moment (it is in the WAL); a power loss or OS crash
//     may lose the last transactions, never the file's consistency;
//   - busy_timeout as given (zero means DefaultBusyTimeout);
//   - transactions begun with BeginTx are BEGIN IMMEDIATE, so a writer takes
//     the write lock up front and never fails halfway on a lock upgrade; a
//     read-only transaction (sql.TxOptions ReadOnly) is a plain deferred BEGIN;
//   - a 16 MiB page cache per connection;
//   - one pool per file and process: every OpenDB of the same file (and
//     busy timeout) in this process shares one *sql.DB, so writers that
//     take turns on LockWrites run on one connection whose page cache
//     stays warm (a commit on another connection empties it), and wait for
//     each other in Go rather than in SQLite's busy loop;
//   - checkpoints in the background: a goroutine copies the WAL back into
//     the database (a PASSIVE checkpoint, on its own connection), so
//     commits seldom wait for the copying and its fsyncs (measured: a
//     random-row update or delete at 1 million rows costs half as much as
//     with SQLite's default checkpoint every 1000 pages). It runs from ten
//     times a second, while writers fill the WAL quickly, to once a second,
//     while they write little (checkpointEvery); a writer checkpoints
//     itself only once the WAL reaches restartPages, to bound it. When the
//     last connection to the file closes, SQLite checkpoints and removes
//     the WAL.
//
// OpenDB checks the file at once: a file that is not SQLite, a directory,
// or one that cannot be created gives a clear error here, not at first use.
// Errors are described by DescribeSQLiteError.
func OpenDB(ctx context.Context, path string, busyTimeout time.Duration) (*DB, error) {
	if busyTimeout <= 0 {
		busyTimeout = DefaultBusyTimeout
	}
	if path == "" {
		return nil, errors.New("no database file given")
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("%s is a directory, not a database file", path)
	}
	key := fileKey{path: canonicalPath(path), busy: busyTimeout}
	openFiles.Lock()
	defer openFiles.Unlock()
	if f := openFiles.m[key]; f != nil && f.same(path) {
		f.refs++
		return &DB{DB: f.db, file: f}, nil
	}
	// Not open, or open but since removed or replaced: a pool of its own
	// (the old one stays with those who hold it).
	f, err := openNew(ctx, path, busyTimeout)
	if err != nil {
		return nil, err
	}
	f.key, f.refs = key, 1
	f.fi, _ = os.Stat(path)
	openFiles.m[key] = f
	return &DB{DB: f.db, file: f}, nil
}

// same reports whether path is still the file f opened.
func (f *openFile) same(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && f.fi != nil && os.SameFile(fi, f.fi)
}

// canonicalPath is path made absolute, its symbolic links resolved when
// it exists: the key two opens of one file agree on.
func canonicalPath(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	return path
}

// openNew opens the file's pool and starts its checkpointer.
func openNew(ctx context.Context, path string, busyTimeout time.Duration) (*openFile, error) {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "cache_size(-16384)")
	q.Add("_pragma", fmt.Sprintf("wal_autocheckpoint(%d)", restartPages))
	q.Add("_pragma", "journal_size_limit(67108864)")
	q.Add("_txlock", "immediate")
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
	sdb, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, DescribeSQLiteError(err, busyTimeout)
	}
	// The first connection runs the pragmas: this is where a file that is
	// not a database, or a lock held too long, shows up.
	var mode string
	if err := sdb.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		sdb.Close()
		return nil, whyNotWritable(path, DescribeSQLiteError(err, busyTimeout))
	}
	if !strings.EqualFold(mode, "wal") {
		sdb.Close()
		return nil, fmt.Errorf("cannot switch %s to WAL mode (journal_mode is %s)", path, mode)
	}
	// The checkpointer has a pool of its own, so that it never takes the
	// connection (and the page cache) a writer has warmed up.
	q.Del("_txlock")
	ckpt, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		sdb.Close()
		return nil, DescribeSQLiteError(err, busyTimeout)
	}
	ckpt.SetMaxOpenConns(1)
	// DataVersion's connection never writes, so every commit (of this
	// process's pool or of another process) changes what it reads.
	watch, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		sdb.Close()
		ckpt.Close()
		return nil, DescribeSQLiteError(err, busyTimeout)
	}
	watch.SetMaxOpenConns(1)
	cctx, cancel := context.WithCancel(context.Background())
	f := &openFile{db: sdb, ckpt: ckpt, watch: watch, cancel: cancel, done: make(chan struct{})}
	go f.checkpointer(cctx)
	return f, nil
}

// LockWrites waits for this process's turn to write to the file and
// takes it; UnlockWrites gives it back. Every write transaction of a
// store that can share a process with another store on the same file
// (the frontier's) runs between the two: the writers then take turns here,
// on one warm connection, not in SQLite's busy loop. A transaction between
// the two must not begin another on the same file.
func (db *DB) LockWrites() { db.file.writes.Lock() }

// UnlockWrites gives back the turn LockWrites took.
func (db *DB) UnlockWrites() { db.file.writes.Unlock() }

// DataVersion returns a number that changes whenever a transaction that
// wrote to the file commits, in this process or in another one (SQLite's
// PRAGMA data_version, read on a connection of its own that never
// writes). It costs a fraction of a transaction: a reader that polls can
// look at it first and skip its transaction while nothing has changed.
func (db *DB) DataVersion(ctx context.Context) (int64, error) {
	var v int64
	err := db.file.watch.QueryRowContext(ctx, "PRAGMA data_version").Scan(&v)
	return v, err
}

// Close lets go of the file; the last DB of a file to close stops its
// checkpointer and closes its pool. A second Close does nothing.
func (db *DB) Close() error {
	var err error
	db.closed.Do(func() {
		openFiles.Lock()
		f := db.file
		f.refs--
		last := f.refs == 0
		if last && openFiles.m[f.key] == f {
			delete(openFiles.m, f.key)
		}
		openFiles.Unlock()
		if last {
			err = f.close()
		}
	})
	return err
}

// close stops the checkpointer and closes the pools.
func (f *openFile) close() error {
	f.cancel()
	<-f.done
	f.ckpt.Close()
	f.watch.Close()
	return f.db.Close()
}

// restartPages is the WAL size (pages) at which a writer checkpoints
// itself, after its commit (wal_autocheckpoint): by then the checkpointer
// has copied nearly everything, so this is quick, and it lets the next
// writer start the WAL over. Without it, writers that never pause would keep
// the WAL from ever being fully copied, and it would grow without bound.
var restartPages = 8192

// checkpointer runs a PASSIVE checkpoint on its own connection, at the
// pace checkpointEvery sets. A PASSIVE checkpoint never waits for readers
// or writers and copies what it can; when the WAL has nothing new it does
// nothing (no fsync). Errors (another process checkpointing, say) are
// simply retried at the next one.
func (f *openFile) checkpointer(ctx context.Context) {
	defer close(f.done)
	every, last := checkpointMin, 0
	t := time.NewTimer(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		start := time.Now()
		busy, frames, copied := 0, -1, 0
		f.ckpt.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied)
		// About the frames written since the last checkpoint: the WAL's
		// growth, or its whole length when it started over meanwhile
		// (and grew less than its old length).
		written := frames
		if frames >= last {
			written = frames - last
		}
		if frames >= 0 {
			last = frames
		}
		every = checkpointEvery(every, written)
		// Counted from this checkpoint's start, as a ticker would.
		t.Reset(max(every-time.Since(start), 0))
	}
}

// The checkpointer's pace: from checkpointMin to checkpointMax apart,
// aiming at about checkpointFrames frames written between two checkpoints.
const (
	checkpointMin    = 100 * time.Millisecond
	checkpointMax    = time.Second
	checkpointFrames = 2048
)

// checkpointEvery returns the wait before the next checkpoint, given the
// last wait, every, and the frames added to the WAL during it, written
// (-1: the checkpoint failed): the shortest at once when much was
// written, twice as long when little was (so a burst of writes after a
// quiet spell waits at most one checkpointMax for its first). Each
// checkpoint that copies anything costs two fsyncs (the WAL's, then the
// database's) whatever it copies: where writers commit little at a time,
// as the processes of a crawl loop do, ten a second in each of them cost
// more than the copying. Where writers fill the WAL quickly, checkpoints
// ten times a second keep it short, and a short WAL keeps each page's
// lookup in it quick and the writers from checkpointing themselves.
func checkpointEvery(every time.Duration, written int) time.Duration {
	switch {
	case written < 0:
		return every
	case written >= checkpointFrames:
		return checkpointMin
	case written < checkpointFrames/4:
		every *= 2
	}
	return min(max(every, checkpointMin), checkpointMax)
}

// SQLite result codes DescribeSQLiteError knows (primary codes).
const (
	sqliteBusy     = 5
	sqliteLocked   = 6
	sqliteReadOnly = 8
	sqliteIOErr    = 10
	sqliteCorrupt  = 11
	sqliteFull     = 13
	sqliteCantOpen = 14
	sqliteNotADB   = 26
)

// Sentinel errors, matched with errors.Is.
var (
	// ErrLocked: another process held the database past the busy timeout.
	ErrLocked = errors.New("database is locked by another process")
	// ErrFull: the disk (or the database's size limit) is full.
	ErrFull = errors.New("disk full")
	// ErrNotDatabase: the file is not an SQLite database.
	ErrNotDatabase = errors.New("file is not a database")
	// ErrCorrupt: SQLite found the file damaged.
	ErrCorrupt = errors.New("database file is corrupt")
)

// DescribeSQLiteError turns an SQLite error into one a user can act on,
// wrapping ErrLocked, ErrFull, ErrNotDatabase or ErrCorrupt when it is one of
// those, and keeping SQLite's own message in parentheses. busyTimeout is
// the timeout the database was opened with, named in the locked message.
// Other errors are returned as they are.
func DescribeSQLiteError(err error, busyTimeout time.Duration) error {
	if err == nil {
		return nil
	}
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return err
	}
	msg := se.Error()
	switch se.Code() & 0xff {
	case sqliteBusy, sqliteLocked:
		return &describedError{ErrLocked, fmt.Sprintf("database is locked by another process (still locked after the %v busy timeout)", busyTimeout), msg}
	case sqliteFull:
		return &describedError{ErrFull, "disk full, or the database reached its size limit; nothing of this transaction was written", msg}
	case sqliteNotADB:
		return &describedError{ErrNotDatabase, "file is not a database", msg}
	case sqliteCorrupt:
		return &describedError{ErrCorrupt, "database file is corrupt", msg}
	case sqliteReadOnly:
		return &describedError{nil, "database is read-only", msg}
	case sqliteCantOpen:
		return &describedError{nil, "cannot open the database file", msg}
	case sqliteIOErr:
		return &describedError{nil, "I/O error on the database file (a full disk, a file size limit, or a failing device)", msg}
	}
	return err
}

type describedError struct {
	sentinel error
	text     string
	sqlite   string
}

func (e *describedError) Error() string { return e.text + " (" + e.sqlite + ")" }

func (e *describedError) Is(target error) bool {
	return e.sentinel != nil && target == e.sentinel
}

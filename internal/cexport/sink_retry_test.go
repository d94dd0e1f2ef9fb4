package cexport

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/pgtest"
	"github.com/crawlutils/crawlutils/internal/storage"
)

// liveExport is cexport running in-process on a pipe: the test writes
// records and reads what it passes on as it comes.
type liveExport struct {
	in     *io.PipeWriter
	acks   chan string
	done   chan int
	mu     sync.Mutex
	stderr strings.Builder
}

func startExport(t *testing.T, args ...string) *liveExport {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	e := &liveExport{in: inW, acks: make(chan string, 1000), done: make(chan int, 1)}
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			e.acks <- sc.Text()
		}
		close(e.acks)
	}()
	go func() {
		code := execute(context.Background(), append([]string{"-q"}, args...), inR, outW, writerFunc(func(p []byte) (int, error) {
			e.mu.Lock()
			defer e.mu.Unlock()
			return e.stderr.Write(p)
		}))
		outW.Close()
		inR.Close()
		e.done <- code
	}()
	return e
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// send writes items from..to and then an ack named after to.
func (e *liveExport) send(t *testing.T, from, to int) {
	t.Helper()
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, `{"url":"https://shop.example/%d","n":%d}`+"\n", i, i)
	}
	fmt.Fprintf(&b, `{"kind":"ack","lease":"L%d"}`+"\n", to)
	if _, err := io.WriteString(e.in, b.String()); err != nil {
		t.Fatal(err)
	}
}

// ack waits for the next ack passed on, or "" if none comes within d.
func (e *liveExport) ack(d time.Duration) string {
	if d == 0 {
		select {
		case a := <-e.acks:
			return a
		default:
			return ""
		}
	}
	select {
	case a := <-e.acks:
		return a
	case <-time.After(d):
		return ""
	}
}

func (e *liveExport) log() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.stderr.String()
}

// TestDBRetryRidesOutARestart: the PostgreSQL server is stopped mid-run
// and started again 2 s later: cexport waits, writes the batch again and
// ends 0 with every row in the table and every ack passed on.
func TestDBRetryRidesOutARestart(t *testing.T) {
	t.Parallel()
	s := pgtest.StartWith(t, pgtest.Options{})
	e := startExport(t, "-o", s.URL+"?table=items", "--key", "url", "--db-retry", "30s")
	e.send(t, 1, 10)
	if a := e.ack(10 * time.Second); a != `{"kind":"ack","lease":"L10"}` {
		t.Fatalf("first ack: %q; stderr:\n%s", a, e.log())
	}
	s.Stop()
	e.send(t, 11, 20)
	time.Sleep(2 * time.Second)
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	if a := e.ack(30 * time.Second); a != `{"kind":"ack","lease":"L20"}` {
		t.Fatalf("ack after the restart: %q; stderr:\n%s", a, e.log())
	}
	e.send(t, 21, 25)
	e.in.Close()
	if code := <-e.done; code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, e.log())
	}
	if a := e.ack(time.Second); a != `{"kind":"ack","lease":"L25"}` {
		t.Errorf("last ack: %q", a)
	}
	if got := pgRows(t, s.URL, "SELECT count(*), count(DISTINCT url) FROM items"); got[0] != "25|25" {
		t.Errorf("rows: %s", got[0])
	}
	log := e.log()
	if !strings.Contains(log, "retrying for 30s (--db-retry)") || !strings.Contains(log, "written again after") {
		t.Errorf("stderr:\n%s", log)
	}
	t.Logf("stderr:\n%s", log)
}

// TestDBRetryGivesUp: a server that stays away past --db-retry ends the
// run with status 1, and the ack after the unwritten items is not passed
// on (the frontier hands those pages out again); the rows before it are in
// the table.
func TestDBRetryGivesUp(t *testing.T) {
	t.Parallel()
	s := pgtest.StartWith(t, pgtest.Options{})
	e := startExport(t, "-o", s.URL+"?table=items", "--key", "url", "--db-retry", "2s")
	e.send(t, 1, 10)
	if a := e.ack(10 * time.Second); a != `{"kind":"ack","lease":"L10"}` {
		t.Fatalf("first ack: %q; stderr:\n%s", a, e.log())
	}
	s.Stop()
	start := time.Now()
	e.send(t, 11, 20)
	e.in.Close()
	code := <-e.done
	if code != cli.ExitFailure {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, e.log())
	}
	if d := time.Since(start); d < 2*time.Second {
		t.Errorf("gave up after %v, before --db-retry 2s", d)
	}
	if a := e.ack(time.Second); a != "" {
		t.Errorf("an ack passed on after a failed write: %q", a)
	}
	log := e.log()
	if !strings.Contains(log, "gave up after") || !strings.Contains(log, "1 held ack(s) not passed on") {
		t.Errorf("stderr:\n%s", log)
	}
	t.Logf("stderr:\n%s", log)
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	if got := pgRows(t, s.URL, "SELECT count(*) FROM items"); got[0] != "10" {
		t.Errorf("rows: %s, want the 10 acknowledged", got[0])
	}
}

// TestDBRetrySQLiteLocked: an SQLite file locked by another process past
// the busy timeout is waited for; once the lock is gone the batch is
// written and the ack passed on.
func TestDBRetrySQLiteLocked(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("waits out SQLite's 5 s busy timeout")
	}
	path := filepath.Join(t.TempDir(), "items.db")
	e := startExport(t, "-o", "sqlite:"+path+"?table=items", "--key", "url", "--db-retry", "30s")
	e.send(t, 1, 5)
	if a := e.ack(10 * time.Second); a != `{"kind":"ack","lease":"L5"}` {
		t.Fatalf("first ack: %q; stderr:\n%s", a, e.log())
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	e.send(t, 6, 10)
	// The write waits out the busy timeout, then cexport says it retries.
	for deadline := time.Now().Add(storage.DefaultBusyTimeout + 30*time.Second); !strings.Contains(e.log(), "retrying for 30s"); {
		if time.Now().After(deadline) {
			t.Fatalf("no retry reported; stderr:\n%s", e.log())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if a := e.ack(0); a != "" {
		t.Fatalf("ack passed on while the file was locked: %q", a)
	}
	conn.ExecContext(context.Background(), "ROLLBACK")
	conn.Close()
	if a := e.ack(10 * time.Second); a != `{"kind":"ack","lease":"L10"}` {
		t.Fatalf("ack after the lock: %q; stderr:\n%s", a, e.log())
	}
	e.in.Close()
	if code := <-e.done; code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, e.log())
	}
}

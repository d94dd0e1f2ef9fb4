package frontier

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"os/signal"

	"github.com/crawlutils/crawlutils/internal/redistest"
)

// Some tests re-execute the test binary as a child process (several
// processes on one SQLite file, a lock held by another process, a file size
// limit). The child's role is in FRONTIER_TEST_CHILD.
func TestMain(m *testing.M) {
	if role := os.Getenv("FRONTIER_TEST_CHILD"); role != "" {
		os.Exit(child(role, os.Getenv("FRONTIER_TEST_DB")))
	}
	code := m.Run()
	redistest.StopShared() // the Redis Cluster of the "cluster" backend
	for _, fn := range benchCleanups {
		fn()
	}
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

func child(role, path string) int {
	ctx := context.Background()
	switch role {
	case "pop":
		// Pop and ack until the frontier is empty, printing each URL.
		f, err := OpenSQLite(ctx, path, Options{BusyTimeout: 30 * time.Second})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer f.Close()
		w := bufio.NewWriter(os.Stdout)
		defer w.Flush()
		for {
			res, err := f.Pop(ctx, PopOptions{Max: 5, Lease: time.Hour}, t0)
			ls := res.Leased
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			if len(ls) == 0 {
				return 0
			}
			for _, u := range urlsOf(ls) {
				fmt.Fprintln(w, u)
			}
			if _, err := f.Ack(ctx, leases(ls), t0); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
		}
	case "lock":
		// Hold the write lock until stdin closes.
		db, err := sql.Open("sqlite", path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		conn, err := db.Conn(ctx)
		if err == nil {
			_, err = conn.ExecContext(ctx, "BEGIN IMMEDIATE")
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println("locked")
		bufio.NewReader(os.Stdin).ReadString('\n')
		conn.ExecContext(ctx, "ROLLBACK")
		return 0
	case "fill":
		// Push under a file size limit until it is reached; report how many
		// requests were queued and the error.
		limit, _ := strconv.ParseUint(os.Getenv("FRONTIER_TEST_FSIZE"), 10, 64)
		signal.Ignore(syscall.SIGXFSZ)
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: limit, Max: limit}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		f, err := OpenSQLite(ctx, path, Options{})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer f.Close()
		queued := 0
		for i := 0; ; i++ {
			batch := fillBatch(i)
			if _, err := f.Push(ctx, batch, t0); err != nil {
				fmt.Printf("%d\n%v\n", queued, err)
				return 0
			}
			queued += len(batch)
		}
	}
	fmt.Fprintln(os.Stderr, "unknown child role", role)
	return 2
}

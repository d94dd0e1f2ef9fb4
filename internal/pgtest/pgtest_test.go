package pgtest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestStart(t *testing.T) {
	s := StartWith(t, Options{})
	ctx := context.Background()
	c, err := pgx.Connect(ctx, s.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var n int
	var fsync string
	if err := c.QueryRow(ctx, "SELECT 1 + 1, current_setting('fsync')").Scan(&n, &fsync); err != nil {
		t.Fatal(err)
	}
	if n != 2 || fsync != "off" {
		t.Fatalf("got %d, fsync %s", n, fsync)
	}
}

func TestStartTwice(t *testing.T) {
	a, b := Start(t), Start(t)
	if a == b {
		t.Fatalf("two servers on one address: %s", a)
	}
}

// TestStopRestart: a stopped server refuses connections; restarted, it
// has the data committed before.
func TestStopRestart(t *testing.T) {
	s := StartWith(t, Options{})
	ctx := context.Background()
	c, err := pgx.Connect(ctx, s.URL)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "CREATE TABLE t (n int); INSERT INTO t VALUES (7)"); err != nil {
		t.Fatal(err)
	}
	s.Stop()
	if err := c.Ping(ctx); err == nil {
		t.Fatal("a connection to the stopped server still works")
	}
	c.Close(ctx)
	if ready(s.URL) {
		t.Fatal("the stopped server takes connections")
	}
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	c, err = pgx.Connect(ctx, s.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var n int
	if err := c.QueryRow(ctx, "SELECT n FROM t").Scan(&n); err != nil || n != 7 {
		t.Fatalf("after the restart: %d, %v", n, err)
	}
}

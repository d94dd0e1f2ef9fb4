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

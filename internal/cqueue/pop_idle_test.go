package cqueue

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/frontier"
	"github.com/crawlutils/crawlutils/internal/ndjson"
	"github.com/crawlutils/crawlutils/internal/record"
)

func TestIdleWatch(t *testing.T) {
	t0 := time.Unix(1_000_000, 0)
	var w idleWatch
	if w.unchanged(1, true, t0) {
		t.Error("unchanged before any pop")
	}
	w.popped(0, 1, true, t0)
	for _, c := range []struct {
		v    int64
		ok   bool
		at   time.Duration
		want bool
	}{
		{1, true, 0, true},
		{1, true, idleRecheck - time.Millisecond, true},
		{1, true, idleRecheck, false}, // what comes with time alone: pop again
		{2, true, time.Millisecond, false},
		{1, false, time.Millisecond, false}, // no version: pop
	} {
		if got := w.unchanged(c.v, c.ok, t0.Add(c.at)); got != c.want {
			t.Errorf("unchanged(%d, %v, +%v) = %v, want %v", c.v, c.ok, c.at, got, c.want)
		}
	}
	w.popped(3, 1, true, t0)
	if w.unchanged(1, true, t0) {
		t.Error("unchanged after a pop that handed out requests")
	}
	w.popped(0, 1, false, t0)
	if w.unchanged(1, true, t0) {
		t.Error("unchanged after a pop without a version")
	}
}

// countingFrontier counts the Pops and the looks at the version of a real
// SQLite frontier.
type countingFrontier struct {
	*frontier.SQLite
	pops, looks atomic.Int64
}

func (c *countingFrontier) Pop(ctx context.Context, o frontier.PopOptions, now time.Time) (frontier.PopResult, error) {
	c.pops.Add(1)
	return c.SQLite.Pop(ctx, o, now)
}

func (c *countingFrontier) Version(ctx context.Context) (int64, error) {
	c.looks.Add(1)
	return c.SQLite.Version(ctx)
}

// TestPopIdleLooksAtTheVersion: a pop --follow that finds nothing to hand
// out (the one request is held by another consumer) looks at the
// frontier's version rather than popping again, and pops at once when
// another process writes: the request that process pushes is handed out.
// The clock stands still, so no Pop is due to time alone.
func TestPopIdleLooksAtTheVersion(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1_700_000_000, 0)
	path := filepath.Join(t.TempDir(), "q.db")
	// Another process: a pool of its own (another busy timeout).
	other, err := frontier.OpenSQLite(context.Background(), path, frontier.Options{BusyTimeout: 7 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	entry := func(url string) frontier.Entry {
		t.Helper()
		e, err := frontier.NewEntry(record.Request{Kind: record.KindRequest, URL: url, CrawlID: "c"}, frontier.KeyFast)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	if _, err := other.Push(context.Background(), []frontier.Entry{entry("https://a.example/1")}, t0); err != nil {
		t.Fatal(err)
	}
	elsewhere, err := other.Join(context.Background(), frontier.Consumer{Host: "elsewhere.test", PID: 1, Boot: "b"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := other.Pop(context.Background(), frontier.PopOptions{Max: 1, Lease: time.Hour, Consumer: elsewhere}, t0); err != nil || len(res.Leased) != 1 {
		t.Fatalf("the other consumer's pop = %+v, %v", res, err)
	}

	fr, err := frontier.OpenSQLite(context.Background(), path, frontier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fr.Close()
	cf := &countingFrontier{SQLite: fr}
	var out, stderr lockedBuffer
	p := &popper{
		fr:   cf,
		o:    popOptions{follow: true, lease: time.Hour, window: 16, batch: 16, poll: 5 * time.Millisecond, horizon: time.Second},
		out:  &out,
		w:    ndjson.NewWriter(&out),
		tool: cli.NewTool("cqueue", &stderr),
		now:  func() time.Time { return t0 },
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	done := make(chan error, 1)
	go func() { done <- p.run(ctx) }()
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for !cond() {
			select {
			case err := <-done:
				t.Fatalf("pop ended (%v) before %s; stderr %s", err, what, stderr.String())
			case <-time.After(time.Millisecond):
			}
		}
	}
	waitFor("40 looks", func() bool { return cf.looks.Load() >= 40 })
	if n := cf.pops.Load(); n > 3 {
		t.Errorf("%d pops in %d looks at a frontier nobody wrote to", n, cf.looks.Load())
	}
	if _, err := other.Push(context.Background(), []frontier.Entry{entry("https://b.example/2")}, t0); err != nil {
		t.Fatal(err)
	}
	waitFor("the pushed request", func() bool { return strings.Contains(out.String(), "https://b.example/2") })
	cancel(cli.ErrKilled)
	if err := <-done; !errors.Is(err, cli.ErrKilled) {
		t.Errorf("pop: %v", err)
	}
}

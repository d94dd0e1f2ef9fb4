package cqueue

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/frontier"
)

// lockedBuffer is a bytes.Buffer a command writes while the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// waitFor polls cond for up to a minute (a slow machine only makes it
// wait longer).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting: %s", what)
		}
	}
}

// TestPopPauses: a pop --follow serving a crawl paused in its metadata
// (cqueue serve's pause) hands out nothing — a batch popped before it knew
// goes back to the queue — until the crawl is resumed, while acks of what
// is in flight still come in; a crawl stopped while paused still ends the
// pop.
func TestPopPauses(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "q.db")
	seeds := "https://a.example/1\nhttps://a.example/2\nhttps://a.example/3\nhttps://b.example/1\nhttps://b.example/2\nhttps://b.example/3\n"
	if _, errs, code := run(t, seeds, "push", "-q", "--db", path, "--crawlid", "c"); code != 0 {
		t.Fatalf("push: %s", errs)
	}
	ctx := context.Background()
	fr, err := frontier.OpenSQLite(ctx, path, frontier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fr.Close()
	setPaused := func(v string) {
		t.Helper()
		if _, err := fr.SetCrawlMeta(ctx, "c", map[string]string{frontier.MetaPaused: v}, true); err != nil {
			t.Fatal(err)
		}
	}
	var out, errb lockedBuffer
	handed := func() int { return strings.Count(out.String(), `"lease":"`) }
	acked := 0
	ackAll := func() {
		t.Helper()
		var lines []string // the requests handed out (pause records aside)
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			if strings.Contains(line, `"lease":"`) {
				lines = append(lines, line)
			}
		}
		var leases []string
		for _, line := range lines[acked:] {
			i := strings.Index(line, `"lease":"`) + len(`"lease":"`)
			leases = append(leases, line[i:i+strings.IndexByte(line[i:], '"')])
		}
		if _, err := fr.Ack(ctx, leases, time.Now()); err != nil {
			t.Fatal(err)
		}
		acked = len(lines)
	}
	setPaused("1")
	exited := make(chan int, 1)
	go func() {
		exited <- execute(ctx, []string{"pop", "--db", path, "--follow", "-q", "--window", "2"}, strings.NewReader(""), &out, &errb)
	}()
	// Its first batch is given back: nothing handed out, nothing in flight.
	waitFor(t, "the first batch given back", func() bool {
		s, err := fr.Stats(ctx)
		return err == nil && s[frontier.StatReleased] == 2
	})
	time.Sleep(1500 * time.Millisecond) // a few looks at the flag
	if n := handed(); n != 0 {
		t.Fatalf("a paused pop handed out %d requests", n)
	}
	if c, _ := fr.Counts(ctx); c != (frontier.Counts{Queued: 6}) {
		t.Fatalf("counts while paused = %+v, want 6 queued", c)
	}

	// It says so down the loop, once: a pause record.
	if n := strings.Count(out.String(), `{"kind":"pause","crawlid":"c"}`); n != 1 {
		t.Errorf("a paused pop wrote %d pause records, want 1:\n%s", n, out.String())
	}
	setPaused("0")
	waitFor(t, "a window handed out after the resume", func() bool { return handed() == 2 })
	// Paused while running: the acks still come in, nothing more goes out.
	setPaused("1")
	time.Sleep(1500 * time.Millisecond)
	ackAll()
	time.Sleep(1500 * time.Millisecond)
	if n := handed(); n != 2 {
		t.Fatalf("paused while running, pop handed out %d requests, want still 2", n)
	}
	setPaused("0")
	// Until all six are acked, not handed out: the last window can come
	// out between an ackAll and the loop's test, and left unacked it would
	// keep pop waiting for it.
	for acked < 6 {
		waitFor(t, "the next window", func() bool { return handed() > acked })
		ackAll()
	}
	select {
	case code := <-exited:
		if code != 0 {
			t.Fatalf("pop exited %d: %s", code, errb.String())
		}
	case <-time.After(time.Minute):
		t.Fatal("pop did not end with its crawl")
	}

	// Stopped while paused: the queue is purged, the pop ends.
	run(t, "https://a.example/4\n", "push", "-q", "--db", path, "--crawlid", "d")
	if _, err := fr.SetCrawlMeta(ctx, "d", map[string]string{frontier.MetaPaused: "1"}, true); err != nil {
		t.Fatal(err)
	}
	released := func() int64 {
		s, err := fr.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return s[frontier.StatReleased]
	}
	before := released()
	go func() {
		exited <- execute(ctx, []string{"pop", "--db", path, "--follow", "-q"}, strings.NewReader(""), &out, &errb)
	}()
	// The pop is paused once it has given its first batch back.
	waitFor(t, "the paused crawl's batch given back", func() bool { return released() > before })
	if _, err := fr.Stop(ctx, "d", time.Now()); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-exited:
		if code != 0 {
			t.Fatalf("pop exited %d: %s", code, errb.String())
		}
	case <-time.After(time.Minute):
		t.Fatal("a pop paused on a stopped crawl did not end")
	}
}

package e2e

import (
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/throttle"
)

// TestFleetHoldsAHostThatAsked429: two pipelines, each a cthrottle on one
// SQLite state feeding its own cfetch --throttle-db on the same state,
// crawl one host at 20/s together. The host answers pipeline A's first
// request 429 with Retry-After: 2. cfetch A writes that rest into the
// state as a hold, and pipeline B, which never saw the 429, sends nothing
// to the host until the hold ends; then both go on at the rate.
//
// The allowance: a record a cthrottle had already reserved a slot for
// when the hold reached the state may keep that slot until cthrottle
// next reads the holds (every 250 ms). The input is fed at the rate, as a crawl
// loop feeds it, so such records are few (usually none, at most one or two); the
// test tells them apart by when each line was written to B's input, and
// when the hold was first seen in the state. Every assertion is an
// ordering or a lower bound on time: a slow machine makes every start
// later, which none of this forbids.
func TestFleetHoldsAHostThatAsked429(t *testing.T) {
	if testing.Short() {
		t.Skip("timed pipelines are skipped with -short")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	bin := binDir(t)
	state := filepath.Join(t.TempDir(), "crawl.db")
	const (
		rate     = 50 * time.Millisecond // 20/s, shared
		each     = 15                    // records per pipeline
		feed     = 2 * rate              // each pipeline's input pace: the two together, the rate
		pause    = 2 * time.Second       // the Retry-After
		allowed  = 2                     // records of B reserved before the hold, at most
		maxSlack = time.Millisecond
	)

	var mu sync.Mutex
	hits := map[string]time.Time{} // path → when the site saw it
	var sent429 time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		hits[r.URL.Path] = now
		first := r.URL.Path == "/a/0"
		if first {
			sent429 = now
		}
		mu.Unlock()
		if first {
			w.Header().Set("Retry-After", "2")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		io.WriteString(w, "<h1>ok</h1>")
	}))
	t.Cleanup(srv.Close)
	key, _ := throttle.HostKey(srv.URL)

	// The hold, as soon as it is in the state (polled), and its end.
	var holdSeen, holdEnd time.Time
	pollDone := make(chan struct{})
	stopPoll := make(chan struct{})
	go func() {
		defer close(pollDone)
		db, err := sql.Open("sqlite", state)
		if err != nil {
			t.Error(err)
			return
		}
		defer db.Close()
		for {
			var us int64
			if db.QueryRow(`SELECT hold_us FROM throttle_slots WHERE key = ?`, key).Scan(&us) == nil && us > 0 {
				mu.Lock()
				holdSeen, holdEnd = time.Now(), time.UnixMicro(us)
				mu.Unlock()
				return
			}
			select {
			case <-stopPoll:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()

	type pipe struct {
		name    string
		cmd     *exec.Cmd
		stdin   io.WriteCloser
		stderr  strings.Builder
		paths   map[string]string    // <stdin>:N → path
		written map[string]time.Time // path → when its line was written
	}
	var pipes []*pipe
	for _, name := range []string{"a", "b"} {
		p := &pipe{name: name, paths: map[string]string{}, written: map[string]time.Time{}}
		p.cmd = exec.Command("bash", "-c", fmt.Sprintf(
			"set -o pipefail; cthrottle -q --debug --db %[1]s --rate 20/s | cfetch -q --retries 0 --throttle-db %[1]s >/dev/null", state))
		p.cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "GORACE=atexit_sleep_ms=0")
		p.cmd.Stderr = &p.stderr
		var err error
		if p.stdin, err = p.cmd.StdinPipe(); err != nil {
			t.Fatal(err)
		}
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		pipes = append(pipes, p)
	}
	// Both pipelines up and running first: one request each to another
	// host (localhost, not 127.0.0.1), so that neither reads a backlog.
	warm := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	for _, p := range pipes {
		fmt.Fprintf(p.stdin, "%s/warm/%s\n", warm, p.name)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		_, a := hits["/warm/a"]
		_, b := hits["/warm/b"]
		mu.Unlock()
		if a && b {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the pipelines did not fetch their first request within a minute")
		}
	}
	// Feed both at the rate, A first (its first request gets the 429).
	start := time.Now()
	for i := range each {
		for k, p := range pipes {
			time.Sleep(time.Until(start.Add(time.Duration(i)*feed + time.Duration(k)*rate)))
			path := fmt.Sprintf("/%s/%d", p.name, i)
			p.paths[fmt.Sprintf("<stdin>:%d", i+2)] = path
			p.written[path] = time.Now()
			if _, err := fmt.Fprintf(p.stdin, "%s%s\n", srv.URL, path); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, p := range pipes {
		p.stdin.Close()
		if err := p.cmd.Wait(); err != nil {
			t.Fatalf("pipeline %s: %v\n%s", p.name, err, p.stderr.String())
		}
	}
	close(stopPoll)
	<-pollDone
	took := time.Since(start)

	mu.Lock()
	defer mu.Unlock()
	if sent429.IsZero() || holdEnd.IsZero() {
		t.Fatalf("no 429 sent (%v), or no hold in the state (%v)", sent429, holdEnd)
	}
	if holdEnd.Before(sent429.Add(pause)) {
		t.Fatalf("held until %v, before the 429 (%v) + Retry-After", holdEnd, sent429)
	}
	var slots []time.Time
	preHold := 0
	for _, p := range pipes {
		s := slotsFromDebug(t, p.stderr.String(), p.paths)
		for _, path := range p.paths {
			hit, ok := hits[path]
			if !ok {
				t.Fatalf("%s never fetched", path)
			}
			slot, ok := s[path]
			if !ok {
				t.Fatalf("no slot for %s in cthrottle --debug:\n%s", path, p.stderr.String())
			}
			slots = append(slots, slot)
			if hit.Before(slot.Add(-maxSlack)) {
				t.Errorf("%s fetched at %v, before its slot %v", path, hit.Format(time.StampMicro), slot.Format(time.StampMicro))
			}
			// A line written once the hold was in the state is reserved
			// after it: not before its end.
			if p.written[path].After(holdSeen) && slot.Before(holdEnd) {
				t.Errorf("%s written %v after the hold was in the state, slot %v before its end",
					path, p.written[path].Sub(holdSeen), holdEnd.Sub(slot))
			}
			if path == "/a/0" || hit.Before(sent429) || !hit.Before(sent429.Add(pause)) {
				continue
			}
			// Within the pause: only B's records reserved before the hold
			// was in the state (A's cfetch rests the host itself).
			if p.name == "a" || !p.written[path].Before(holdSeen) {
				t.Errorf("%s fetched %v after the 429, within its Retry-After (line written %v after the hold was in the state)",
					path, hit.Sub(sent429), p.written[path].Sub(holdSeen))
			}
			preHold++
		}
	}
	if preHold > allowed {
		t.Errorf("%d requests within the pause, reserved before the hold; want at most %d", preHold, allowed)
	}
	// The rate holds throughout, across both pipelines: slots one
	// interval apart at least, none of them a burst after the hold.
	slices.SortFunc(slots, func(a, b time.Time) int { return a.Compare(b) })
	for i := 1; i < len(slots); i++ {
		if gap := slots[i].Sub(slots[i-1]); gap < rate {
			t.Errorf("slots %v and %v are %v apart, under the rate's %v", slots[i-1].Format(time.StampMicro), slots[i].Format(time.StampMicro), gap, rate)
		}
	}
	after := 0
	for _, s := range slots {
		if !s.Before(holdEnd) {
			after++
		}
	}
	if after < each {
		t.Errorf("only %d slots after the hold; want most of the %d records there", after, 2*each)
	}
	t.Logf("429 at +%v, held until +%v (in the state %v after the 429); %d requests in the pause reserved before it; %d slots after it; %d pages in %v",
		sent429.Sub(start).Round(time.Millisecond), holdEnd.Sub(start).Round(time.Millisecond), holdSeen.Sub(sent429).Round(time.Millisecond),
		preHold, after, len(slots), took.Round(time.Millisecond))
}

package cthrottle

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
)

// running is cthrottle run in-process on a pipe: the test writes its
// input line by line and reads its output line by line.
type running struct {
	in     *io.PipeWriter
	lines  chan string
	stderr *syncBuffer
	code   chan int
	cancel context.CancelCauseFunc
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func start(t *testing.T, args ...string) *running {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancelCause(context.Background())
	r := &running{in: inW, lines: make(chan string, 1000), stderr: &syncBuffer{}, code: make(chan int, 1), cancel: cancel}
	go func() {
		code := execute(ctx, args, inR, outW, r.stderr)
		outW.Close()
		r.code <- code
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			r.lines <- sc.Text()
		}
		close(r.lines)
	}()
	t.Cleanup(func() {
		cancel(cli.ErrInterrupted)
		inW.Close()
		inR.Close()
	})
	return r
}

func (r *running) write(t *testing.T, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(r.in, l+"\n"); err != nil {
			t.Fatal(err)
		}
	}
}

// next returns the next output line, failing the test after a minute.
func (r *running) next(t *testing.T) string {
	t.Helper()
	select {
	case l, ok := <-r.lines:
		if !ok {
			t.Fatalf("output ended; stderr:\n%s", r.stderr.String())
		}
		return l
	case <-time.After(time.Minute):
		t.Fatalf("no output line within a minute; stderr:\n%s", r.stderr.String())
	}
	return ""
}

func urlOf(line string) string {
	var r struct {
		URL string `json:"url"`
	}
	json.Unmarshal([]byte(line), &r)
	return r.URL
}

// TestNoHeadOfLineBlocking: while one host waits an hour for its next
// slot, the other hosts' requests and the records that are not requests
// pass; each host's requests keep their order. The interrupt then writes
// the held request at once, and the exit status is 130.
func TestNoHeadOfLineBlocking(t *testing.T) {
	t.Parallel()
	rates := filepath.Join(t.TempDir(), "rates.txt")
	os.WriteFile(rates, []byte("slow.test 1/h\n"), 0o644)
	r := start(t, "--local", "--rate", "50/s", "--rates", rates, "--on-overflow", "wait", "-q")
	r.write(t, "http://slow.test/1", "http://slow.test/2")
	var fast []string
	for i := range 20 {
		fast = append(fast, fmt.Sprintf("http://fast%d.test/%d", i%3, i))
	}
	r.write(t, fast...)
	r.write(t, `{"kind":"ack","lease":"l1"}`)
	got := map[string][]string{}
	for range 22 {
		u := urlOf(r.next(t))
		host := strings.Split(strings.TrimPrefix(u, "http://"), "/")[0]
		got[host] = append(got[host], u)
	}
	if len(got["slow.test"]) != 1 || got["slow.test"][0] != "http://slow.test/1" {
		t.Fatalf("slow.test: %v, want only its first request", got["slow.test"])
	}
	if got[""] == nil {
		t.Errorf("the ack did not pass")
	}
	for h := range 3 {
		host := fmt.Sprintf("fast%d.test", h)
		var want []string
		for _, u := range fast {
			if strings.Contains(u, host) {
				want = append(want, u)
			}
		}
		if strings.Join(got[host], " ") != strings.Join(want, " ") {
			t.Errorf("%s: %v, want %v", host, got[host], want)
		}
	}
	// The held one is still held (an hour): an interrupt writes it.
	r.cancel(cli.ErrInterrupted)
	if u := urlOf(r.next(t)); u != "http://slow.test/2" {
		t.Fatalf("after the interrupt: %s", u)
	}
	if code := <-r.code; code != cli.ExitInterrupted {
		t.Fatalf("exit %d, want 130", code)
	}
}

// TestBufferStopsReading: with --buffer 2, once two requests are held the
// next is read and waits for room, and the one after it is not read at
// all: its writer blocks (back-pressure), until the run ends.
func TestBufferStopsReading(t *testing.T) {
	t.Parallel()
	r := start(t, "--local", "--rate", "1/h", "--on-overflow", "wait", "--buffer", "2", "-q")
	// The first passes at once; the second and third are held.
	r.write(t, "http://a.test/1", "http://a.test/2", "http://a.test/3", "http://a.test/4")
	wrote := make(chan struct{})
	go func() {
		io.WriteString(r.in, "http://a.test/5\n")
		close(wrote)
	}()
	if u := urlOf(r.next(t)); u != "http://a.test/1" {
		t.Fatalf("first out: %s", u)
	}
	select {
	case <-wrote:
		t.Fatal("the fifth record was read while two were held and a fourth waited")
	case <-time.After(300 * time.Millisecond):
	}
	r.cancel(cli.ErrInterrupted)
	<-r.code
}

// TestEndOfInputWritesHeldRecordsAtTheirSlots: at the end of input, held
// records are written at their slots, not before; the exit status is 0.
func TestEndOfInputWritesHeldRecordsAtTheirSlots(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	startAt := time.Now()
	code := execute(context.Background(), []string{"--local", "--rate", "10/s", "--burst", "2", "-q"},
		strings.NewReader("http://a.test/1\nhttp://a.test/2\nhttp://a.test/3\nhttp://a.test/4\n"), &out, &errb)
	el := time.Since(startAt)
	if code != 0 || strings.Count(out.String(), "\n") != 4 {
		t.Fatalf("exit %d, out %q, stderr %q", code, out.String(), errb.String())
	}
	// Burst 2: two at once, then 100ms apart: the last at 200ms.
	if el < 200*time.Millisecond {
		t.Fatalf("4 records at 10/s burst 2 took %v, less than 200ms", el)
	}
}

// TestRobotsCrawlDelayWins: with --robots a host's Crawl-delay, slower
// than --rate, spaces its requests (slots from --debug, on the store's
// clock), robots.txt is fetched once per host, and a host without one
// goes at the rate.
func TestRobotsCrawlDelayWins(t *testing.T) {
	t.Parallel()
	slow, slowHits := robotsServer(t, 200, "User-agent: *\nCrawl-delay: 0.3\n")
	fast, fastHits := robotsServer(t, 404, "")
	var in strings.Builder
	for i := range 3 {
		fmt.Fprintf(&in, "%s/page%d\n%s/page%d\n", slow.URL, i, fast.URL, i)
	}
	var out, errb bytes.Buffer
	code := execute(context.Background(), []string{"--local", "--rate", "100/s", "--robots", "--debug", "-q"}, strings.NewReader(in.String()), &out, &errb)
	if code != 0 || strings.Count(out.String(), "\n") != 6 {
		t.Fatalf("exit %d, out %q, stderr %q", code, out.String(), errb.String())
	}
	if slowHits.Load() != 1 || fastHits.Load() != 1 {
		t.Errorf("robots.txt fetched %d and %d times, want once per host", slowHits.Load(), fastHits.Load())
	}
	slots := debugSlots(t, errb.String())
	slowKey := strings.TrimPrefix(slow.URL, "http://")
	fastKey := strings.TrimPrefix(fast.URL, "http://")
	if len(slots[slowKey]) != 3 || len(slots[fastKey]) != 3 {
		t.Fatalf("slots %v\n%s", slots, errb.String())
	}
	for i := 1; i < 3; i++ {
		if gap := slots[slowKey][i].Sub(slots[slowKey][i-1]); gap < 300*time.Millisecond {
			t.Errorf("Crawl-delay 0.3: slots %v apart", gap)
		}
		if gap := slots[fastKey][i].Sub(slots[fastKey][i-1]); gap != 10*time.Millisecond {
			t.Errorf("no robots.txt, 100/s: slots %v apart, want 10ms", gap)
		}
	}
	if !strings.Contains(errb.String(), "robots.txt of "+slow.URL+": delay 300ms") {
		t.Errorf("--debug does not show the robots.txt delay:\n%s", errb.String())
	}
}

// debugSlots reads the slots --debug prints, by key, in order.
func debugSlots(t *testing.T, stderr string) map[string][]time.Time {
	t.Helper()
	slots := map[string][]time.Time{}
	for _, line := range strings.Split(stderr, "\n") {
		// cthrottle: <stdin>:3: host:port: slot 1712345678.123456, wait 0s
		i := strings.Index(line, ": slot ")
		if i < 0 {
			continue
		}
		head := strings.Split(line[:i], ": ")
		key := head[len(head)-1]
		var sec, usec int64
		if _, err := fmt.Sscanf(line[i+len(": slot "):], "%d.%d", &sec, &usec); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		slots[key] = append(slots[key], time.Unix(sec, usec*1000))
	}
	return slots
}

// TestLeasedRequestsWaitInsteadOfRejected: in reject mode a request with
// a lease is held however long, since a rejected one would never be
// acked and its crawl would never end; one without a lease is rejected.
func TestLeasedRequestsWaitInsteadOfRejected(t *testing.T) {
	t.Parallel()
	rejects := filepath.Join(t.TempDir(), "rejects.jsonl")
	r := start(t, "--local", "--rate", "1/h", "--max-wait", "0", "--rejects", rejects, "-q")
	r.write(t, "http://a.test/1", `{"kind":"request","url":"http://a.test/2","lease":"L2"}`, "http://a.test/3", "http://b.test/1")
	if u := urlOf(r.next(t)); u != "http://a.test/1" {
		t.Fatalf("first out: %s", u)
	}
	if u := urlOf(r.next(t)); u != "http://b.test/1" {
		t.Fatalf("second out: %s", u)
	}
	r.cancel(cli.ErrInterrupted)
	if u := urlOf(r.next(t)); u != "http://a.test/2" {
		t.Fatalf("released by the interrupt: %s", u)
	}
	<-r.code
	b, _ := os.ReadFile(rejects)
	if string(b) != `{"kind":"request","url":"http://a.test/3","reason":"throttled"}`+"\n" {
		t.Fatalf("rejects: %s", b)
	}
}

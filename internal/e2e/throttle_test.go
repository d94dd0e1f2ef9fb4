package e2e

import (
	"bufio"
	"encoding/json"
	"errors"
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
	"syscall"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/redistest"
)

// hitLog is a site that records when each page was asked for.
type hitLog struct {
	mu   sync.Mutex
	hits map[string][]time.Time
}

func newHitSite(t *testing.T) (*httptest.Server, *hitLog) {
	h := &hitLog{hits: map[string][]time.Time{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		h.mu.Lock()
		h.hits[r.URL.Path] = append(h.hits[r.URL.Path], now)
		h.mu.Unlock()
		io.WriteString(w, "<h1>ok</h1>")
	}))
	t.Cleanup(srv.Close)
	return srv, h
}

// slotsFromDebug reads cthrottle --debug lines: the slot (on the store's
// clock, this machine's) of each record, by URL path.
func slotsFromDebug(t *testing.T, stderr string, paths map[string]string) map[string]time.Time {
	t.Helper()
	slots := map[string]time.Time{}
	for _, line := range strings.Split(stderr, "\n") {
		// cthrottle: <stdin>:3: 127.0.0.1:40123: slot 1712345678.123456, wait 200ms
		i := strings.Index(line, ": slot ")
		if i < 0 {
			continue
		}
		pos := strings.Split(line, ": ")[1]
		var sec, usec int64
		if _, err := fmt.Sscanf(line[i+len(": slot "):], "%d.%d", &sec, &usec); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		slots[paths[pos]] = time.Unix(sec, usec*1000)
	}
	return slots
}

// maxInWindow is the most times that fall in any half-open window
// [t, t+w).
func maxInWindow(ts []time.Time, w time.Duration) int {
	ts = slices.Clone(ts)
	slices.SortFunc(ts, func(a, b time.Time) int { return a.Compare(b) })
	most := 0
	j := 0
	for i := range ts {
		for ts[i].Sub(ts[j]) >= w {
			j++
		}
		most = max(most, i-j+1)
	}
	return most
}

// TestThrottleAcrossProcesses: three cthrottle processes on one state (an
// SQLite file that is also the frontier's, or Redis), each feeding its own
// cfetch, at 5/s for the one host they all crawl: every page is fetched
// once; the schedule they reserved has at most 5 (+ burst - 1) starts in
// any second; no page is fetched before its slot; and the crawl takes at
// least as long as the rate says. Only lower bounds on time: a slow
// machine makes every start later, which none of this forbids.
func TestThrottleAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("timed pipelines are skipped with -short")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	bin := binDir(t)
	for _, tc := range []struct {
		name  string
		burst int
	}{{"sqlite", 1}, {"redis", 1}, {"sqlite_burst_3", 3}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			state := "--db " + filepath.Join(dir, "crawl.db")
			if strings.HasPrefix(tc.name, "redis") {
				state = "--redis " + redistest.Start(t)
			} else {
				// The frontier's file: cthrottle adds its own table to it.
				out, err := exec.Command("bash", "-c", "echo https://a.test/ | cqueue push -q "+state).CombinedOutput()
				if err != nil {
					t.Fatalf("cqueue push: %v\n%s", err, out)
				}
			}
			srv, site := newHitSite(t)
			const procs, each = 3, 8
			const rate = 200 * time.Millisecond       // 5/s
			paths := make([]map[string]string, procs) // per process: <stdin>:N → path
			var cmds []*exec.Cmd
			var stderrs []*strings.Builder
			start := time.Now()
			for p := range procs {
				var in strings.Builder
				paths[p] = map[string]string{}
				for i := range each {
					path := fmt.Sprintf("/p%d/%d", p, i)
					fmt.Fprintf(&in, "%s%s\n", srv.URL, path)
					paths[p][fmt.Sprintf("<stdin>:%d", i+1)] = path
				}
				cmd := exec.Command("bash", "-c", fmt.Sprintf(
					"set -o pipefail; cthrottle -q --debug %s --rate 5/s --burst %d | cfetch -q --concurrency 8 >/dev/null", state, tc.burst))
				cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "GORACE=atexit_sleep_ms=0")
				cmd.Stdin = strings.NewReader(in.String())
				var stderr strings.Builder
				cmd.Stderr = &stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				cmds = append(cmds, cmd)
				stderrs = append(stderrs, &stderr)
			}
			for i, cmd := range cmds {
				if err := cmd.Wait(); err != nil {
					t.Fatalf("pipeline %d: %v\n%s", i, err, stderrs[i])
				}
			}
			var slots, hits []time.Time
			site.mu.Lock()
			defer site.mu.Unlock()
			for p := range procs {
				s := slotsFromDebug(t, stderrs[p].String(), paths[p])
				for _, path := range paths[p] {
					slot, ok := s[path]
					if !ok {
						t.Fatalf("no slot for %s in process %d's --debug:\n%s", path, p, stderrs[p])
					}
					h := site.hits[path]
					if len(h) != 1 {
						t.Fatalf("%s fetched %d times, want once", path, len(h))
					}
					if h[0].Before(slot.Add(-time.Millisecond)) {
						t.Errorf("%s fetched at %v, before its slot %v", path, h[0].Format(time.StampMicro), slot.Format(time.StampMicro))
					}
					slots = append(slots, slot)
					hits = append(hits, h[0])
				}
			}
			if most := maxInWindow(slots, time.Second); most > 5+tc.burst-1 {
				t.Errorf("%d slots in one second, at 5/s burst %d", most, tc.burst)
			}
			// The k-th fetch (from 0) comes at least (k - burst + 1)
			// intervals after the start.
			slices.SortFunc(hits, func(a, b time.Time) int { return a.Compare(b) })
			for k, h := range hits {
				if want := time.Duration(k-tc.burst+1) * rate; h.Sub(start) < want-time.Millisecond {
					t.Errorf("fetch %d at +%v, before the rate allows (+%v)", k, h.Sub(start), want)
				}
			}
			t.Logf("%d pages by %d processes in %v (the rate's least: %v); at most %d slots in a second, %d fetches",
				len(hits), procs, hits[len(hits)-1].Sub(start).Round(time.Millisecond), time.Duration(len(hits)-tc.burst)*rate, maxInWindow(slots, time.Second), maxInWindow(hits, time.Second))
			if !strings.HasPrefix(tc.name, "redis") {
				// The frontier in the same file is untouched.
				out, err := exec.Command("bash", "-c", "cqueue info "+state).CombinedOutput()
				if err != nil || !strings.Contains(string(out), `"queued":1`) {
					t.Errorf("cqueue info after cthrottle used its file: %v\n%s", err, out)
				}
			}
		})
	}
}

// TestThrottledHostDoesNotDelayOthers: a cthrottle process whose input
// holds requests for a host throttled to one an hour, then for other
// hosts: the others pass at their own rate while the throttled host's
// second request waits; SIGINT then writes it at once and exits 130.
func TestThrottledHostDoesNotDelayOthers(t *testing.T) {
	dir := t.TempDir()
	rates := filepath.Join(dir, "rates.txt")
	os.WriteFile(rates, []byte("slow.test 1/h\n"), 0o644)
	cmd := command(t, "cthrottle", "-q", "--db", filepath.Join(dir, "t.db"), "--rate", "20/s", "--rates", rates, "--on-overflow", "wait")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	io.WriteString(stdin, "http://slow.test/1\nhttp://slow.test/2\n")
	const fast = 30
	for i := range fast {
		fmt.Fprintf(stdin, "http://fast%d.test/%d\n", i%2, i)
	}
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func() string {
		select {
		case l := <-lines:
			return l
		case <-time.After(time.Minute):
			t.Fatalf("no output for a minute; stderr: %s", stderr.String())
		}
		return ""
	}
	seen := map[string]int{}
	for range fast + 1 {
		l := next()
		if strings.Contains(l, "slow.test/2") {
			t.Fatalf("the throttled host's second request passed before the others: %s", l)
		}
		seen[strings.Split(strings.Split(l, "//")[1], "/")[0]]++
	}
	if seen["slow.test"] != 1 || seen["fast0.test"] != fast/2 || seen["fast1.test"] != fast/2 {
		t.Fatalf("passed: %v", seen)
	}
	cmd.Process.Signal(syscall.SIGINT)
	if l := next(); !strings.Contains(l, "slow.test/2") {
		t.Fatalf("after SIGINT: %s", l)
	}
	stdin.Close()
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit %v, want 130; stderr: %s", err, stderr.String())
	}
}

// TestThrottleInterruptedAfterItsReaderLeft: cthrottle holds records
// and its input has ended (in a crawl, cqueue pop stops at the interrupt
// first); then the drain signal comes and its reader goes at once (cfetch
// stops reading at the same signal). The held records it then writes at
// once, more than a pipe holds, find no reader: that is what the
// interrupt asked for, not a failure, and cthrottle exits 130 without a
// word. (cqueue crawl --cthrottle said "failed: cthrottle killed by
// signal: broken pipe" when cthrottle died of SIGPIPE here.)
func TestThrottleInterruptedAfterItsReaderLeft(t *testing.T) {
	const n = 512 // 2 MiB: more than a pipe holds
	pad := strings.Repeat("x", 4096)
	var in strings.Builder
	for i := range n {
		fmt.Fprintf(&in, `{"kind":"request","url":"http://a.test/%d","meta":{"pad":"%s"}}`+"\n", i, pad)
	}
	stats := filepath.Join(t.TempDir(), "stats.json")
	cmd := command(t, "cthrottle", "-q", "--debug", "--local", "--rate", "1/h", "--on-overflow", "wait", "--stats", stats)
	cmd.Stdin = strings.NewReader(in.String())
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = w
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	w.Close()
	// Once the last record has its slot (--debug says so), the input is
	// over: the first record has passed, the others are held for hours.
	sc := bufio.NewScanner(stderr)
	last := fmt.Sprintf("cthrottle: <stdin>:%d: ", n)
	for sc.Scan() && !strings.HasPrefix(sc.Text(), last) {
	}
	cmd.Process.Signal(cli.DrainSignal)
	// The first record, then the second, released by the signal: once it
	// is out, cthrottle has seen the signal, and its reader goes.
	br := bufio.NewReader(r)
	for _, want := range []string{"a.test/0", "a.test/1"} {
		if l, err := br.ReadString('\n'); !strings.Contains(l, want+`"`) {
			t.Fatalf("out: %.80q (%v), want %s", l, err, want)
		}
	}
	r.Close()
	var said []string
	for sc.Scan() {
		said = append(said, sc.Text())
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != cli.ExitInterrupted {
		t.Fatalf("exit %v, want %d; stderr after the signal: %q", err, cli.ExitInterrupted, said)
	}
	if len(said) > 0 {
		t.Errorf("stderr after the signal: %q", said)
	}
	b, err := os.ReadFile(stats)
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Out     int64            `json:"out"`
		Dropped map[string]int64 `json:"dropped"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	if st.Out+st.Dropped["interrupted"] != n || st.Dropped["interrupted"] == 0 || len(st.Dropped) > 1 {
		t.Errorf("out %d, dropped %v; want %d, some dropped as interrupted", st.Out, st.Dropped, n)
	}
}

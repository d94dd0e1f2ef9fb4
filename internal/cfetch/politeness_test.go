package cfetch

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/record"
)

// vhost returns the server's port and the --resolve flag that sends every
// host name on that port to it, so a test can use many virtual hosts.
func vhost(t *testing.T, s *httptest.Server) (port string, resolve []string) {
	t.Helper()
	_, port, err := net.SplitHostPort(s.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	return port, []string{"--resolve", "*:" + port + ":127.0.0.1"}
}

// TestRobotsDeniedRequestIsARecord: a request robots.txt disallows is
// answered with "error":"robots" and never reaches the server; the others
// are fetched; robots.txt itself is fetched once.
func TestRobotsDeniedRequestIsARecord(t *testing.T) {
	t.Parallel()
	s := newFaultServer()
	defer s.Close()
	s.setRobots("shop.test", robotsText("User-agent: *\nDisallow: /private/\n\nUser-agent: crawlutils\nDisallow: /status/\n"))
	port, resolve := vhost(t, s.Server)
	base := "http://shop.test:" + port
	in := strings.Join([]string{base + "/ok", base + "/private/x", base + "/status/200", base + "/echo"}, "\n") + "\n"
	res := runCfetch(t, in, append(resolve, fast...)...)
	if res.code != 0 || len(res.resps) != 4 {
		t.Fatalf("exit %d, %d responses\n%s", res.code, len(res.resps), res.stderr)
	}
	byURL := map[string]record.Response{}
	for _, r := range res.resps {
		byURL[r.URL] = r
	}
	// Our own group applies, not "*": /private/ is allowed for crawlutils.
	if r := byURL[base+"/status/200"]; r.Error != ErrRobots || r.Status != 0 ||
		r.ErrorDetail != `disallowed by http://shop.test:`+port+`/robots.txt for user agent "crawlutils"` {
		t.Errorf("denied request: %+v", r)
	}
	for _, p := range []string{"/ok", "/private/x", "/echo"} {
		if r := byURL[base+p]; r.Error != "" {
			t.Errorf("%s: error %s %s", p, r.Error, r.ErrorDetail)
		}
	}
	if n := s.hits("shop.test /status/200"); n != 0 {
		t.Errorf("the denied URL was requested %d times", n)
	}
	if n := s.hits("shop.test /robots.txt"); n != 1 {
		t.Errorf("robots.txt fetched %d times, want 1", n)
	}
}

// TestNoRobots: --no-robots neither fetches nor obeys robots.txt.
func TestNoRobots(t *testing.T) {
	t.Parallel()
	s := newFaultServer()
	defer s.Close()
	s.setRobots("shop.test", robotsText("User-agent: *\nDisallow: /\n"))
	port, resolve := vhost(t, s.Server)
	res := runCfetch(t, "http://shop.test:"+port+"/ok\n", append(append(resolve, "--no-robots"), fast...)...)
	if r := res.one(t); r.Status != 200 || r.Error != "" {
		t.Errorf("%+v", r)
	}
	if n := s.hits("shop.test /robots.txt"); n != 0 {
		t.Errorf("robots.txt fetched %d times", n)
	}
}

// TestRobotsFailureModes: RFC 9309's answers to a robots.txt that is not a
// plain 200.
func TestRobotsFailureModes(t *testing.T) {
	t.Parallel()
	s := newFaultServer()
	defer s.Close()
	s.setRobots("html.test", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<!DOCTYPE html><html><body><h1>Welcome!</h1><p>Disallow: this is prose</p></body></html>")
	})
	s.setRobots("gone.test", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusGone) })
	s.setRobots("down.test", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) })
	s.setRobots("slow.test", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-s.quit:
		}
	})
	s.setRobots("moved.test", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://html.test:"+strings.Split(r.Host, ":")[1]+"/robots.txt", http.StatusMovedPermanently)
	})
	port, resolve := vhost(t, s.Server)
	tests := []struct {
		host, err, detail string
		robotsFetches     int
		args              []string
	}{
		{"html.test", "", "", 1, nil},
		{"gone.test", "", "", 1, nil},
		{"moved.test", "", "", 1, nil},
		{"down.test", ErrRobots, "robots.txt is unavailable (status 503): nothing may be fetched", 2, nil},
		{"slow.test", ErrRobots, "robots.txt is unavailable (timeout: no complete response within 300ms (--timeout))", 2, []string{"--timeout", "300ms"}},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			u := "http://" + tt.host + ":" + port + "/ok"
			args := append(append(slices.Clone(resolve), "--retries", "1", "--retry-backoff", "1ms"), tt.args...)
			r := runCfetch(t, u+"\n", args...).one(t)
			if r.Error != tt.err || !strings.Contains(r.ErrorDetail, tt.detail) {
				t.Errorf("error %q %q, want %q %q", r.Error, r.ErrorDetail, tt.err, tt.detail)
			}
			if n := s.hits(tt.host + " /robots.txt"); n != tt.robotsFetches {
				t.Errorf("robots.txt fetched %d times, want %d", n, tt.robotsFetches)
			}
			if tt.err != "" && s.hits(tt.host+" /ok") != 0 {
				t.Error("the page was fetched although robots.txt could not be read")
			}
		})
	}
}

// TestCrawlDelay: a robots.txt Crawl-delay spaces the starts of the
// host's requests at least that far apart, random factor or not. The
// starts are read from the records (fetched_at minus duration_ms, cfetch's
// own clock), so a slow machine cannot make the test fail.
func TestCrawlDelay(t *testing.T) {
	t.Parallel()
	s := newFaultServer()
	defer s.Close()
	s.setRobots("slowly.test", robotsText("User-agent: *\nCrawl-delay: 0.3\n"))
	port, resolve := vhost(t, s.Server)
	var in strings.Builder
	for i := range 4 {
		fmt.Fprintf(&in, "http://slowly.test:%s/ok?%d\n", port, i)
	}
	res := runCfetch(t, in.String(), resolve...)
	if len(res.resps) != 4 {
		t.Fatalf("%d responses", len(res.resps))
	}
	var starts []time.Time
	for _, r := range res.resps {
		end, err := time.Parse(time.RFC3339Nano, r.FetchedAt)
		if err != nil {
			t.Fatal(err)
		}
		starts = append(starts, end.Add(-time.Duration(r.DurationMS*float64(time.Millisecond))))
	}
	slices.SortFunc(starts, func(a, b time.Time) int { return a.Compare(b) })
	for i := 1; i < len(starts); i++ {
		// fetched_at has millisecond precision.
		if gap := starts[i].Sub(starts[i-1]); gap < 298*time.Millisecond {
			t.Errorf("requests %d and %d started %s apart, Crawl-delay is 300ms", i-1, i, gap)
		}
	}
}

// TestOneSlowHostDoesNotStallTheOthers: while every request to one host
// hangs, the requests to nine other hosts, read after them, are all
// answered.
func TestOneSlowHostDoesNotStallTheOthers(t *testing.T) {
	t.Parallel()
	s := newFaultServer()
	defer s.Close()
	port, resolve := vhost(t, s.Server)
	var in strings.Builder
	for i := range 16 {
		fmt.Fprintf(&in, "http://slow.test:%s/gate?%d\n", port, i)
	}
	for h := range 9 {
		for i := range 10 {
			fmt.Fprintf(&in, "http://fast%d.test:%s/ok?%d\n", h, port, i)
		}
	}
	stdout, out := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- execute(context.Background(), append([]string{"-q", "--concurrency", "16"}, resolve...), strings.NewReader(in.String()), out, io.Discard)
		out.Close()
	}()
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	fast := 0
	lines := make(chan string)
	go func() {
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	for fast < 90 {
		l := waitFor(t, lines, "the fast hosts' responses while the slow host hangs")
		if !strings.Contains(l, `"url":"http://fast`) || !strings.Contains(l, `"status":200`) {
			t.Fatalf("unexpected line while the slow host hangs: %s", record.Snippet([]byte(l), 200))
		}
		fast++
	}
	if m := s.maxPerHost("slow.test"); m > 8 {
		t.Errorf("%d requests at once to slow.test, --per-host is 8", m)
	}
	close(s.gate)
	for range lines {
	}
	if code := waitFor(t, done, "the end of the run"); code != 0 {
		t.Errorf("exit %d", code)
	}
}

// TestPerHostConcurrency: no host gets more than --per-host requests at
// once, and the global limit holds across hosts.
func TestPerHostConcurrency(t *testing.T) {
	t.Parallel()
	s := newFaultServer()
	defer s.Close()
	port, resolve := vhost(t, s.Server)
	var in strings.Builder
	for _, h := range []string{"a.test", "b.test", "c.test"} {
		for i := range 6 {
			fmt.Fprintf(&in, "http://%s:%s/gate?%d\n", h, port, i)
		}
	}
	done := make(chan result, 1)
	go func() {
		done <- runCfetch(t, in.String(), append([]string{"--concurrency", "5", "--per-host", "2"}, resolve...)...)
	}()
	for range 5 {
		waitFor(t, s.entered, "5 requests in flight")
	}
	close(s.gate)
	res := waitFor(t, done, "the end of the run")
	if len(res.resps) != 18 {
		t.Fatalf("%d responses\n%s", len(res.resps), res.stderr)
	}
	for _, h := range []string{"a.test", "b.test", "c.test"} {
		if m := s.maxPerHost(h); m > 2 {
			t.Errorf("%s had %d requests at once, --per-host 2", h, m)
		}
	}
	if m := s.maxActive.Load(); m > 5 {
		t.Errorf("%d requests at once, --concurrency 5", m)
	}
}

// lineReader yields one line per Read and counts the Reads.
type lineReader struct {
	lines []string
	reads atomic.Int64
}

func (r *lineReader) Read(p []byte) (int, error) {
	n := r.reads.Add(1)
	if int(n) > len(r.lines) {
		return 0, io.EOF
	}
	return copy(p, r.lines[n-1]), nil
}

// TestReadAheadIsBounded: with every request stuck, cfetch stops reading
// its input once --read-ahead records are held (back-pressure on stdin).
func TestReadAheadIsBounded(t *testing.T) {
	t.Parallel()
	s := newFaultServer()
	defer s.Close()
	r := &lineReader{}
	for i := range 100 {
		r.lines = append(r.lines, fmt.Sprintf("%s/gate?%d\n", s.URL, i))
	}
	done := make(chan result, 1)
	go func() {
		done <- runCfetchCtx(t, context.Background(), r, "--concurrency", "2", "--read-ahead", "5")
	}()
	waitFor(t, s.entered, "a request")
	waitFor(t, s.entered, "a second request")
	time.Sleep(300 * time.Millisecond) // time to read more, if it would
	// 5 held, one more read and waiting to be taken, and the read that
	// asks for it.
	if n := r.reads.Load(); n > 7 {
		t.Errorf("%d lines read while 2 requests hang, --read-ahead 5", n)
	}
	close(s.gate)
	if res := waitFor(t, done, "the end of the run"); len(res.resps) != 100 {
		t.Errorf("%d responses", len(res.resps))
	}
}

// TestRetryAfter: a Retry-After in the past asks for no wait (the retry's
// own backoff remains); one of a year is not waited for (the record says
// so) and does not hang cfetch.
func TestRetryAfter(t *testing.T) {
	t.Parallel()
	s := newFaultServer()
	defer s.Close()
	r := runCfetch(t, s.URL+"/retry-after-past\n", "--retries", "2").one(t)
	if r.Status != 200 || r.Retries != 1 || r.Body != "back" {
		t.Errorf("Retry-After in the past: %+v", r)
	}
	res := runCfetch(t, s.URL+"/retry-after-year\n"+s.URL+"/ok\n", "--retries", "2", "--retry-after-max", "500ms")
	for _, r := range res.resps {
		switch {
		case strings.HasSuffix(r.URL, "/retry-after-year"):
			if r.Status != 429 || r.Retries != 0 || !slices.Contains(r.Warnings, "not retried: Retry-After 8760h0m0s is over --retry-after-max 500ms") {
				t.Errorf("Retry-After of a year: %+v", r)
			}
		case r.Status != 200:
			t.Errorf("%+v", r)
		}
	}
}

// TestMoreFaults: the rest of the list of hostile servers.
func TestMoreFaults(t *testing.T) {
	t.Parallel()
	s := newFaultServer()
	t.Cleanup(s.Close)
	tests := []struct {
		name, path string
		args       []string
		err        []string // any of these
		detail     string
	}{
		{"slow-loris body", "/slowloris", []string{"--timeout", "1s"}, []string{ErrTimeout}, "no complete response within 1s (--timeout)"},
		{"slow-loris headers", "/slowheaders", []string{"--header-timeout", "300ms"}, []string{ErrTimeout}, "--header-timeout"},
		{"reset mid-body", "/resetmid", nil, []string{ErrReset, ErrTruncated}, ""},
		{"10 GB body", "/big/10737418240", []string{"--max-size", "1MiB"}, []string{ErrTooLarge}, "body is over --max-size 1MiB"},
		{"10 GB Content-Length", "/big/10737418240?cl=1", []string{"--max-size", "1MiB"}, []string{ErrTooLarge}, "Content-Length 10737418240"},
		{"invalid chunked encoding", "/badchunk", nil, []string{ErrProtocol}, "chunk"},
		{"endless redirect chain", "/redirect/1000000", nil, []string{ErrTooManyRedirects}, "more than 20 redirects"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCfetch(t, s.URL+tt.path+"\n", append(slices.Clone(fast), tt.args...)...).one(t)
			if !slices.Contains(tt.err, r.Error) || !strings.Contains(r.ErrorDetail, tt.detail) {
				t.Errorf("error %q %q, want one of %v with %q", r.Error, r.ErrorDetail, tt.err, tt.detail)
			}
		})
	}
}

// TestAutoThrottleDebug: --autothrottle-debug prints each adjustment.
func TestAutoThrottleDebug(t *testing.T) {
	t.Parallel()
	s := newFaultServer()
	defer s.Close()
	res := runCfetch(t, s.URL+"/ok\n"+s.URL+"/ok?2\n", "--autothrottle", "--autothrottle-start-delay", "10ms", "--autothrottle-debug")
	host := strings.TrimPrefix(s.URL, "http://")
	if n := strings.Count(res.stderr, "cfetch: autothrottle: slot: "+host+" | conc:"); n != 3 { // robots.txt and two pages
		t.Errorf("%d debug lines:\n%s", n, res.stderr)
	}
}

// TestStatsCountRobotsAndRetries: the summary accounts for robots.txt and
// retries after the statuses.
func TestStatsCountRobotsAndRetries(t *testing.T) {
	t.Parallel()
	s := newFaultServer()
	defer s.Close()
	var errb strings.Builder
	var out strings.Builder
	code := execute(t.Context(), []string{"--retry-backoff", "1ms"}, strings.NewReader(s.URL+"/flaky/s\n"), &out, &errb)
	summary := errb.String()
	for _, want := range []string{"; status: 200 1; ", "retries: 503 1", "robots: allow_all 1, fetches 1", "robots: allow_all 1, bytes 19, fetches 1"} {
		if !strings.Contains(summary, want) && !strings.HasPrefix(want, "robots: allow_all 1, fetches") {
			t.Errorf("summary lacks %q: %s", want, summary)
		}
	}
	if code != 0 {
		t.Errorf("exit %d", code)
	}
}

// TestInterruptDropsQueuedRequests: after an interrupt the requests not
// yet started are dropped (counted as "interrupted"), also when the whole
// input was read already; the one in flight is finished and written.
func TestInterruptDropsQueuedRequests(t *testing.T) {
	t.Parallel()
	s := newFaultServer()
	defer s.Close()
	ctx, cancel := context.WithCancelCause(context.Background())
	stats := filepath.Join(t.TempDir(), "stats.json")
	done := make(chan result, 1)
	in := &eofReader{r: strings.NewReader(strings.Repeat(s.URL+"/gate\n", 20)), eof: make(chan struct{})}
	go func() {
		done <- runCfetchCtx(t, ctx, in, "--concurrency", "30", "--per-host", "1", "--stats", stats)
	}()
	waitFor(t, s.entered, "the first request")
	<-in.eof
	cancel(cli.ErrInterrupted)
	close(s.gate)
	res := waitFor(t, done, "the end of the run")
	if res.code != cli.ExitInterrupted || len(res.resps) != 1 || res.resps[0].Status != 200 {
		t.Fatalf("exit %d, %d responses", res.code, len(res.resps))
	}
	b, _ := os.ReadFile(stats)
	var st cli.StatsJSON
	json.Unmarshal(b, &st)
	// The reader stops at the interrupt: it may not have taken all 20.
	if st.In < 2 || st.Out != 1 || st.Dropped["interrupted"] != st.In-1 {
		t.Errorf("stats %s", b)
	}
}

// eofReader closes eof when r is at its end.
type eofReader struct {
	r    io.Reader
	eof  chan struct{}
	once sync.Once
}

func (e *eofReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.EOF {
		e.once.Do(func() { close(e.eof) })
	}
	return n, err
}

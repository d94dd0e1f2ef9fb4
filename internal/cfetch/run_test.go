package cfetch

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/record"
)

// TestBadInputIsReportedAndTheStreamGoesOn: every bad line is named by its
// line number, none stops the stream, and the exit status is 3.
func TestBadInputIsReportedAndTheStreamGoesOn(t *testing.T) {
	t.Parallel()
	s := newFaultServer()
	defer s.Close()
	pad := strings.Repeat("a", 10<<20)
	lines := []string{
		`{"url":"` + s.URL + `/ok","n":1}`, // 1
		`{"kind":"request","url":`,         // 2 malformed
		`[{"url":"` + s.URL + `/ok"}]`,     // 3 array
		`{"kind":"request","depth":1}`,     // 4 no url
		`ftp://example.com/file`,           // 5 unsupported scheme
		``,                                 // 6 empty
		`{"url":"` + s.URL + `/ok","n":7,"pad":"` + pad + `"}`, // 7 10 MiB, valid
		`{"url":"` + s.URL + `/ok","pad":"` + pad,              // 8 10 MiB, invalid
		s.URL + `/ok?n=9`, // 9 bare URL
		`{"url":"` + s.URL + `/ok","method":"GE T"}`,        // 10 bad method
		`{"url":"/relative/path","n":11}`,                   // 11 relative
		`{"url":"` + s.URL + `/ok","headers":{"X":"a\nb"}}`, // 12 bad header value
		`{"url":"` + s.URL + `/ok","priority":"high"}`,      // 13 wrong type
	}
	res := runCfetch(t, strings.Join(lines, "\n")+"\n", fast...)
	if res.code != cli.ExitPartial {
		t.Errorf("exit %d, want 3", res.code)
	}
	for _, want := range []string{
		"cfetch: <stdin>:2: invalid record: invalid JSON",
		"cfetch: <stdin>:3: invalid record: expected a JSON object, got an array",
		`cfetch: <stdin>:4: invalid record: field "url" is missing or empty`,
		`cfetch: <stdin>:5: unsupported URL scheme "ftp" (want http or https)`,
		"cfetch: <stdin>:6: invalid record: empty line",
		"cfetch: <stdin>:8: invalid record: invalid JSON",
		`cfetch: <stdin>:10: invalid record: field "method": invalid HTTP method "GE T"`,
		`cfetch: <stdin>:11: relative URL "/relative/path" (want an absolute http or https URL)`,
		`cfetch: <stdin>:12: invalid record: field "headers"`,
		`cfetch: <stdin>:13: invalid record: field "priority": expected an integer, got string`,
	} {
		if !strings.Contains(res.stderr, want+"") {
			t.Errorf("stderr lacks %q", want)
		}
	}
	if len(res.stderr) > 4000 {
		t.Errorf("stderr is %d bytes: a long line was echoed", len(res.stderr))
	}
	got := map[string]string{}
	for _, r := range res.resps {
		var req struct {
			N   int    `json:"n"`
			URL string `json:"url"`
			Pad string `json:"pad"`
		}
		json.Unmarshal(r.Request, &req)
		got[r.URL] += r.Error + ","
		if req.N == 7 && len(req.Pad) != len(pad) {
			t.Errorf("the 10 MiB request came back with a %d-byte pad", len(req.Pad))
		}
	}
	// Requests that cannot be sent (lines 4, 10, 12, 13) are answered too,
	// with invalid_request, so that a crawl loop settles them.
	if len(res.resps) != 9 {
		t.Errorf("got %d responses, want 9 (lines 1, 4, 5, 7, 9, 10, 11, 12, 13): %v", len(res.resps), got)
	}
	if got["ftp://example.com/file"] != "unsupported_scheme," || got["/relative/path"] != "unsupported_scheme," ||
		sortedCSV(got[s.URL+"/ok"]) != ",,,invalid_request,invalid_request,invalid_request" ||
		got[""] != "invalid_request," {
		t.Errorf("responses by URL: %v", got)
	}
}

// sortedCSV sorts the items of a list "a,b,".
func sortedCSV(s string) string {
	items := strings.Split(s, ",")
	slices.Sort(items)
	return strings.Join(items, ",")
}

// TestPassThrough: records of other kinds come out byte for byte, and a
// request's unknown fields and exact numbers come back in "request".
func TestPassThrough(t *testing.T) {
	t.Parallel()
	s := newFaultServer()
	defer s.Close()
	other := []string{
		`{"kind":"item","data":{"price":1.10,"big":12345678901234567890},"x":"<&>"}`,
		`{"kind":"ack","lease":"l1","url":"https://a/?x=1&y=2"}`,
		`{"kind":"response","url":"https://old/","status":200,  "custom":[1, 2]}`,
	}
	req := `{"kind":"request","url":"` + s.URL + `/ok","attrs":{"n":1.10,"s":"<b>&amp;"},"zz":{"a":[1,2]},"crawlid":"c1"}`
	res := runCfetch(t, strings.Join(append(other, req), "\n")+"\n", fast...)
	if res.code != 0 || len(res.lines) != 4 {
		t.Fatalf("exit %d, %d lines:\n%s\n%s", res.code, len(res.lines), strings.Join(res.lines, "\n"), res.stderr)
	}
	seen := map[string]bool{}
	for _, l := range res.lines {
		seen[l] = true
	}
	for _, o := range other {
		if !seen[o] {
			t.Errorf("not passed through unchanged: %s", o)
		}
	}
	var fetched record.Response
	for _, r := range res.resps {
		if r.URL == s.URL+"/ok" {
			fetched = r
		}
	}
	if string(fetched.Request) != req {
		t.Errorf("request\n got %s\nwant %s", fetched.Request, req)
	}
}

// TestInterruptFinishesInFlight: after the first interrupt nothing new is
// read, the request in flight is not cancelled, its record is written, and
// the exit status is 130 — without waiting for the silent input.
func TestInterruptFinishesInFlight(t *testing.T) {
	t.Parallel()
	s := newFaultServer()
	defer s.Close()
	stdin, feed := io.Pipe()
	defer feed.Close()
	stdout, out := io.Pipe()
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan int, 1)
	var stderr strings.Builder
	go func() {
		done <- execute(ctx, []string{"-q"}, stdin, out, &stderr)
		out.Close()
	}()
	lines := make(chan string, 10)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	io.WriteString(feed, s.URL+"/gate\n")
	waitFor(t, s.entered, "the request to reach the server")
	cancel(cli.ErrInterrupted)
	close(s.gate) // the server answers only after the interrupt
	var got []string
	for l := range lines {
		got = append(got, l)
	}
	select {
	case code := <-done:
		if code != cli.ExitInterrupted {
			t.Errorf("exit %d, want 130; stderr %s", code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after the interrupt")
	}
	if len(got) != 1 || !strings.Contains(got[0], `"status":200`) || !strings.Contains(got[0], `"body":"opened"`) {
		t.Errorf("output after interrupt: %v", got)
	}
}

// TestOutputIsFlushedWhileInputStalls: a crawl loop feeds cfetch one
// request at a time and waits for the answer, so the answer must not sit in
// a buffer.
func TestOutputIsFlushedWhileInputStalls(t *testing.T) {
	t.Parallel()
	s := newFaultServer()
	defer s.Close()
	stdin, feed := io.Pipe()
	stdout, out := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- execute(context.Background(), []string{"-q"}, stdin, out, io.Discard)
		out.Close()
	}()
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	for i := range 3 {
		io.WriteString(feed, s.URL+"/ok\n")
		if l := waitFor(t, lines, "a response while the input is open"); !strings.Contains(l, `"status":200`) {
			t.Fatalf("response %d: %s", i, l)
		}
	}
	feed.Close()
	if code := waitFor(t, done, "the end of the run"); code != 0 {
		t.Errorf("exit %d", code)
	}
}

// TestConcurrency: exactly --concurrency requests are in flight at once,
// never more.
func TestConcurrency(t *testing.T) {
	t.Parallel()
	s := newFaultServer()
	defer s.Close()
	const n = 4
	in := strings.Repeat(s.URL+"/gate\n", 3*n)
	done := make(chan result, 1)
	go func() { done <- runCfetch(t, in, "--concurrency", "4") }()
	for range n {
		waitFor(t, s.entered, "concurrent requests")
	}
	close(s.gate)
	res := waitFor(t, done, "the end of the run")
	if len(res.resps) != 3*n || res.code != 0 {
		t.Fatalf("%d responses, exit %d\n%s", len(res.resps), res.code, res.stderr)
	}
	if m := s.maxActive.Load(); m > n {
		t.Errorf("%d requests in flight at once, --concurrency %d", m, n)
	}
}

// TestStatsFile: the --stats document counts statuses, errors and the bytes
// downloaded.
func TestStatsFile(t *testing.T) {
	t.Parallel()
	s := newFaultServer()
	defer s.Close()
	statsFile := filepath.Join(t.TempDir(), "stats.json")
	in := s.URL + "/big/1000\n" + s.URL + "/status/404\n" + refusedURL(t) + "\n" + `{"kind":"item","data":{}}` + "\n"
	res := runCfetch(t, in, append([]string{"--stats", statsFile}, fast...)...)
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	b, err := os.ReadFile(statsFile)
	if err != nil {
		t.Fatal(err)
	}
	var st cli.StatsJSON
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	if st.In != 4 || st.Out != 4 || st.Errors["refused"] != 1 || st.Counts["status"]["200"] != 1 || st.Counts["status"]["404"] != 1 {
		t.Errorf("stats %s", b)
	}
	// The item passed through is out, counted apart from the responses: a
	// crawl's account counts pages from them.
	if st.Counts["passed"]["item"] != 1 || len(st.Counts["passed"]) != 1 {
		t.Errorf("passed %v, want item 1", st.Counts["passed"])
	}
	if st.Bytes != 1000+int64(len("status 404\n")) {
		t.Errorf("bytes %d, want the bodies downloaded", st.Bytes)
	}
}

func TestOutputFileAndFileArgs(t *testing.T) {
	t.Parallel()
	s := newFaultServer()
	defer s.Close()
	dir := t.TempDir()
	urls := filepath.Join(dir, "urls.txt")
	os.WriteFile(urls, []byte(s.URL+"/ok\nnot a url\n"), 0o644)
	outFile := filepath.Join(dir, "out.jsonl")
	res := runCfetch(t, "", append([]string{"-o", outFile, urls}, fast...)...)
	if res.code != cli.ExitPartial || !strings.Contains(res.stderr, "urls.txt:2: invalid record") {
		t.Errorf("exit %d stderr %s", res.code, res.stderr)
	}
	b, _ := os.ReadFile(outFile)
	if r := parseResult(t, string(b), "", 0); len(r.resps) != 1 || r.resps[0].Status != 200 {
		t.Errorf("output file: %s", b)
	}
}

// waitFor receives from c, failing the test after a generous time (it only
// guards against hangs; nothing here depends on speed).
func waitFor[T any](t *testing.T, c <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(30 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
	var zero T
	return zero
}

package cfetch

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/ndjson"
)

// runKeepFetcher runs cfetch in-process as Run does, and also returns its
// Fetcher, to look at the memory budget after the run.
func runKeepFetcher(t *testing.T, stdin string, args ...string) (result, *Fetcher) {
	t.Helper()
	var out, errb bytes.Buffer
	opts, _, code, done := parseFlags(append([]string{"-q"}, args...), &errb)
	tool := cli.NewTool("cfetch", &errb)
	tool.Quiet = true
	if done {
		t.Fatalf("cfetch %s: exit %d\n%s", strings.Join(args, " "), code, errb.String())
	}
	f, err := NewFetcher(&opts)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := newPipeline(tool, f, &opts, ndjson.NewWriter(&out))
	p.run(t.Context(), ndjson.NewReader(nil, strings.NewReader(stdin)))
	return parseResult(t, out.String(), errb.String(), tool.Finish(t.Context())), f
}

// largePages serves /text/N (UTF-8 HTML), /latin/N (windows-1252, to
// convert), /bin/N (binary, for base64) and /gzip/N (gzip, its size
// unknown before it is read), each of N bytes; and, for the paths where a
// body is let go before its record, /503/N, /redirect/N and /refresh/N
// (to /text/N) and /truncated/N (cut at half its Content-Length).
func largePages(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		kind, size, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		n, err := strconv.Atoi(size)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		page := bytes.Repeat([]byte("<p>\"large\" page\n"), n/16+1)[:n]
		switch kind {
		case "text":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
		case "latin":
			w.Header().Set("Content-Type", "text/html; charset=windows-1252")
			for i := 5; i < n; i += 50 {
				page[i] = 0xe9
			}
		case "bin":
			w.Header().Set("Content-Type", "application/octet-stream")
			page[0] = 0 // binary: the bytes are sniffed
		case "gzip":
			w.Header().Set("Content-Type", "text/plain")
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(compress("gzip", page))
			return
		case "503":
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write(page)
			return
		case "redirect":
			http.Redirect(w, r, "/text/"+size, http.StatusFound)
			w.Write(page)
			return
		case "refresh":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, `<meta http-equiv="refresh" content="0; url=/text/%s">`, size)
			w.Write(page)
			return
		case "truncated":
			w.Header().Set("Content-Length", strconv.Itoa(n))
			w.Write(page[:n/2])
			panic(http.ErrAbortHandler) // the connection closes mid-body
		}
		w.Header().Set("Content-Length", strconv.Itoa(n))
		w.Write(page)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// checkBudget checks the budget after a run: nobody but the one exempt
// response went past it, and everything was given back.
func checkBudget(t *testing.T, f *Fetcher) {
	t.Helper()
	checkIdle(t, f.mem)
	t.Logf("budget %d: peak %d, %d without the exempt response, largest response %d", f.mem.capacity, f.mem.peak, f.mem.peakRest, f.mem.peakOne)
}

// TestMaxMemoryManyLargeResponses: 32 large responses at once, 16 in
// flight, under a budget that holds about two of them: every one
// completes, whole; the bytes held never exceed the budget plus one
// response; all are given back at the end.
//
// The request timeout is ten minutes: under -race on a loaded 2-core
// machine sixteen 1 MiB bodies sharing a 5 MiB budget took over a minute
// (the test is about memory, not time).
func TestMaxMemoryManyLargeResponses(t *testing.T) {
	srv := largePages(t)
	const size = 1 << 20
	var in strings.Builder
	kinds := []string{"text", "latin", "bin", "gzip"}
	for i := range 32 {
		fmt.Fprintf(&in, "%s/%s/%d?n=%d\n", srv.URL, kinds[i%len(kinds)], size, i)
	}
	r, f := runKeepFetcher(t, in.String(), "-c", "16", "--per-host", "16", "--no-robots", "--max-memory", "5MiB", "--timeout", "10m")
	if r.code != 0 || len(r.resps) != 32 {
		t.Fatalf("exit %d, %d responses; want 0, 32\n%s", r.code, len(r.resps), r.stderr)
	}
	for _, resp := range r.resps {
		body := len(resp.Body)
		if resp.BodyBase64 != "" {
			body = len(resp.BodyBase64) / 4 * 3
		}
		if resp.Error != "" || resp.Size != size || body < size {
			t.Errorf("%s: error %q, size %d, body of %d bytes; want the whole page", resp.URL, resp.Error, resp.Size, body)
		}
	}
	checkBudget(t, f)
	if f.mem.peak < 2*size {
		t.Errorf("peak %d: fewer than one response's body and line were ever counted", f.mem.peak)
	}
}

// TestMaxMemoryResponseLargerThanBudget: a response larger than the
// whole budget is not refused nor left waiting: it completes, alone.
func TestMaxMemoryResponseLargerThanBudget(t *testing.T) {
	srv := largePages(t)
	const size = 4 << 20
	in := fmt.Sprintf("%s/text/%d\n%s/gzip/%d\n%s/text/1000\n", srv.URL, size, srv.URL, size, srv.URL)
	r, f := runKeepFetcher(t, in, "--no-robots", "--max-memory", "1MiB", "--timeout", "10m")
	if r.code != 0 || len(r.resps) != 3 {
		t.Fatalf("exit %d, %d responses; want 0, 3\n%s", r.code, len(r.resps), r.stderr)
	}
	for _, resp := range r.resps {
		if resp.Error != "" || int64(len(resp.Body)) != resp.Size || resp.Size < 1000 {
			t.Errorf("%s: error %q, size %d, body of %d bytes; want the whole page", resp.URL, resp.Error, resp.Size, len(resp.Body))
		}
	}
	checkBudget(t, f)
	if f.mem.peakOne < size {
		t.Errorf("the largest response held %d bytes, less than its %d-byte body", f.mem.peakOne, size)
	}
}

// TestMaxMemoryGivenBackOnEveryPath: the memory of a body is given back
// whatever becomes of it — too large, cut short, retried, a redirect's or a
// meta refresh's, read from the HTTP cache — or the budget would shrink for
// good and the crawl stall.
func TestMaxMemoryGivenBackOnEveryPath(t *testing.T) {
	srv := largePages(t)
	cache := t.TempDir()
	var in strings.Builder
	for _, path := range []string{"text/300000", "text/3000000", "gzip/3000000", "503/300000", "redirect/300000", "refresh/300000", "truncated/300000", "bin/0"} {
		fmt.Fprintf(&in, "%s/%s\n", srv.URL, path)
	}
	for run := range 2 { // the second from the cache
		r, f := runKeepFetcher(t, in.String(), "-c", "8", "--per-host", "8", "--no-robots", "--max-memory", "512KiB", "--max-size", "2MiB",
			"--retries", "1", "--retry-backoff", "1ms", "--cache-dir", cache, "--cache-ignore-codes", "503", "--timeout", "10m")
		if len(r.resps) != 8 {
			t.Fatalf("run %d: %d responses, want 8\n%s", run, len(r.resps), r.stderr)
		}
		errs := map[string]int{}
		for _, resp := range r.resps {
			errs[resp.Error]++
		}
		if errs[ErrTooLarge] != 2 || errs[ErrTruncated] != 1 {
			t.Errorf("run %d: errors %v; want too_large 2, truncated 1", run, errs)
		}
		checkBudget(t, f)
	}
}

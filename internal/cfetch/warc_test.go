package cfetch

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/record"
	"github.com/crawlutils/crawlutils/internal/warc"
)

// warcSite serves a page with a Content-Length, a gzipped page sent
// chunked, and a page with an ETag (answered 304 when asked with it).
func warcSite() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<h1>plain</h1>")
	})
	mux.HandleFunc("/chunked", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=iso-8859-1")
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		for i := range 50 {
			fmt.Fprintf(zw, "<p>caf\xe9 %d</p>\n", i)
			zw.Flush()
			w.(http.Flusher).Flush()
		}
		zw.Close()
	})
	mux.HandleFunc("/etag", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Content-Type", "text/html")
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		fmt.Fprint(w, "<h1>etag</h1>")
	})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/plain", http.StatusMovedPermanently)
	})
	return mux
}

// readWARC reads every record of the WARC file path, failing on any
// error.
func readWARC(t *testing.T, path string) []*warc.Record {
	t.Helper()
	recs, err := warc.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// TestWARCRecordsTheWire: each exchange is a request and a response
// record with the bytes as they went over the wire (TLS removed; the
// chunked framing and the gzip coding kept), their digests, the server's
// address, and each naming the other; and --from-warc gives back the
// response records the fetch wrote.
func TestWARCRecordsTheWire(t *testing.T) {
	for _, tls := range []bool{false, true} {
		t.Run(map[bool]string{false: "http", true: "https"}[tls], func(t *testing.T) {
			var s *httptest.Server
			if tls {
				s = httptest.NewTLSServer(warcSite())
			} else {
				s = httptest.NewServer(warcSite())
			}
			defer s.Close()
			path := filepath.Join(t.TempDir(), "crawl.warc.gz")
			urls := s.URL + "/plain\n" + s.URL + "/chunked\n" + s.URL + "/moved\n"
			live := runCfetch(t, urls, "--no-robots", "-k", "-c", "1", "--warc", path)
			if live.code != 0 || len(live.resps) != 3 {
				t.Fatalf("exit %d, %d responses\n%s", live.code, len(live.resps), live.stderr)
			}
			recs := readWARC(t, path)
			if recs[0].Type() != warc.TypeWarcinfo {
				t.Fatalf("first record: %s", recs[0].Type())
			}
			byID := map[string]*warc.Record{}
			for _, r := range recs {
				byID[r.Get("WARC-Record-ID")] = r
			}
			seen := map[string]bool{}
			for _, r := range recs[1:] {
				path := strings.TrimPrefix(r.Get("WARC-Target-URI"), s.URL)
				if r.Get("WARC-IP-Address") != "127.0.0.1" || r.Get("WARC-Block-Digest") != warc.Digest(r.Block) {
					t.Errorf("%s %s: %+v", r.Type(), path, r.Fields)
				}
				other := byID[r.Get("WARC-Concurrent-To")]
				if other == nil || other.Get("WARC-Concurrent-To") != r.Get("WARC-Record-ID") || other.Type() == r.Type() {
					t.Errorf("%s %s: WARC-Concurrent-To does not name its pair", r.Type(), path)
				}
				switch r.Type() {
				case warc.TypeRequest:
					if !bytes.HasPrefix(r.Block, []byte("GET "+path+" HTTP/1.1\r\nHost: ")) || !bytes.HasSuffix(r.Block, []byte("\r\n\r\n")) {
						t.Errorf("request block:\n%s", r.Block)
					}
				case warc.TypeResponse:
					seen[path] = true
					_, payload, _ := bytes.Cut(r.Block, []byte("\r\n\r\n"))
					if r.Get("WARC-Payload-Digest") != warc.Digest(payload) || r.Get("Content-Type") != "application/http;msgtype=response" {
						t.Errorf("response %s: %+v", path, r.Fields)
					}
					if path == "/chunked" && (!bytes.Contains(r.Block, []byte("Transfer-Encoding: chunked\r\n")) || !bytes.Contains(r.Block, []byte("Content-Encoding: gzip\r\n")) || !regexp.MustCompile(`^[0-9a-f]+\r\n$`).Match(payload[:bytes.Index(payload, []byte("\x1f\x8b"))])) {
						t.Errorf("chunked response not as sent:\n%q", r.Block[:min(len(r.Block), 300)])
					}
					if path == "/moved" && !bytes.HasPrefix(r.Block, []byte("HTTP/1.1 301 Moved Permanently\r\n")) {
						t.Errorf("redirect hop:\n%s", r.Block)
					}
				}
			}
			if len(seen) != 3 {
				t.Errorf("responses recorded for %v, want /plain, /chunked, /moved", seen)
			}
			// warc_record_id names the response record of the final
			// exchange (for /moved: /plain's, not the 301's).
			for _, r := range live.resps {
				rec := byID[r.WARCRecordID]
				if rec == nil || rec.Type() != warc.TypeResponse || rec.Get("WARC-Target-URI") != r.URL {
					t.Errorf("%s: warc_record_id %q does not name its response record", r.URL, r.WARCRecordID)
				}
			}

			again := runCfetch(t, "", "--from-warc", path)
			if again.code != 0 || len(again.resps) != 3 {
				t.Fatalf("--from-warc: exit %d, %d responses\n%s", again.code, len(again.resps), again.stderr)
			}
			summary := func(rs []record.Response) string {
				var l []string
				for _, r := range rs {
					l = append(l, fmt.Sprint(r.URL, r.Status, r.Body, r.Encoding, r.Redirects, r.Request, r.Headers["Content-Type"]))
				}
				slices.Sort(l)
				return strings.Join(l, "\n")
			}
			liveID := map[string]string{}
			for _, r := range live.resps {
				liveID[fmt.Sprint(r.URL, r.Redirects)] = r.WARCRecordID
			}
			for _, r := range again.resps {
				if r.WARCRecordID != liveID[fmt.Sprint(r.URL, r.Redirects)] {
					t.Errorf("--from-warc %s: warc_record_id %q, want the record it was read from, %q", r.URL, r.WARCRecordID, liveID[fmt.Sprint(r.URL, r.Redirects)])
				}
			}
			if got, want := summary(again.resps), summary(live.resps); got != want {
				t.Errorf("--from-warc:\n%s\nlive:\n%s", got, want)
			}
		})
	}
}

// TestWARCRevisitFor304: a page the server confirms unchanged (a 304 to
// an RFC 9111 revalidation) is a revisit record; the second run writes
// the next file of the series; --from-warc gives the page back, unchanged.
func TestWARCRevisitFor304(t *testing.T) {
	s := httptest.NewServer(warcSite())
	defer s.Close()
	dir := t.TempDir()
	path := filepath.Join(dir, "crawl.warc.gz")
	args := []string{"--no-robots", "--cache-dir", filepath.Join(dir, "cache"), "--cache-policy", "rfc9111", "--warc", path}
	for round := range 2 {
		if r := runCfetch(t, s.URL+"/etag\n", args...); r.code != 0 || r.one(t).Unchanged != (round == 1) {
			t.Fatalf("round %d: exit %d, %+v\n%s", round, r.code, r.resps, r.stderr)
		}
	}
	second := filepath.Join(dir, "crawl-00001.warc.gz")
	recs := readWARC(t, second)
	var rv *warc.Record
	for _, r := range recs {
		if r.Type() == warc.TypeRevisit {
			rv = r
		}
	}
	if rv == nil || rv.Get("WARC-Profile") != "http://netpreserve.org/warc/1.1/revisit/server-not-modified" || !bytes.HasPrefix(rv.Block, []byte("HTTP/1.1 304 Not Modified\r\n")) || rv.Get("WARC-Refers-To-Target-URI") != s.URL+"/etag" {
		t.Fatalf("no revisit record in %s: %+v", second, recs)
	}
	r := runCfetch(t, "", "--from-warc", path, second)
	if r.code != 0 || len(r.resps) != 2 {
		t.Fatalf("--from-warc: exit %d, %d responses\n%s", r.code, len(r.resps), r.stderr)
	}
	if got := r.resps[1]; got.Status != 200 || got.Body != "<h1>etag</h1>" || !got.Unchanged {
		t.Errorf("revisit replayed as %+v", got)
	}
}

// A 304's revisit record was replayed as another page with an empty
// payload: the revisit carried the digest of its own empty payload, and
// --from-warc looked its original up by that digest first, so the site's
// empty robots.txt (a 404 without a body) stood in for the page.
func TestWARCRevisitFor304IsNotAnotherEmptyPayload(t *testing.T) {
	site := warcSite()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		site.ServeHTTP(w, r)
	}))
	defer s.Close()
	dir := t.TempDir()
	path := filepath.Join(dir, "crawl.warc.gz")
	args := []string{"--cache-dir", filepath.Join(dir, "cache"), "--cache-policy", "rfc9111", "--warc", path}
	for round := range 2 {
		if r := runCfetch(t, s.URL+"/etag\n", args...); r.code != 0 || r.one(t).Unchanged != (round == 1) {
			t.Fatalf("round %d: exit %d, %+v\n%s", round, r.code, r.resps, r.stderr)
		}
	}
	second := filepath.Join(dir, "crawl-00001.warc.gz")
	for _, rec := range readWARC(t, second) {
		if rec.Type() == warc.TypeRevisit && rec.Get("WARC-Payload-Digest") != "" {
			t.Errorf("the server-not-modified revisit has a WARC-Payload-Digest (%s): it has no payload", rec.Get("WARC-Payload-Digest"))
		}
	}
	r := runCfetch(t, "", "--from-warc", path, second)
	if r.code != 0 || len(r.resps) != 2 {
		t.Fatalf("--from-warc: exit %d, %d responses\n%s", r.code, len(r.resps), r.stderr)
	}
	if got := r.resps[1]; got.Status != 200 || got.Body != "<h1>etag</h1>" || !got.Unchanged {
		t.Errorf("revisit replayed as %+v", got)
	}
	// A revisit of another tool that carries the empty digest is not
	// another record with an empty payload either.
	w, err := warc.Create(filepath.Join(dir, "other.warc.gz"), warc.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rv := warc.New(warc.TypeRevisit, time.Now(), []byte("HTTP/1.1 304 Not Modified\r\n\r\n"))
	rv.Set("WARC-Target-URI", s.URL+"/etag")
	rv.Set("WARC-Profile", "http://netpreserve.org/warc/1.0/revisit/server-not-modified")
	rv.Set("WARC-Payload-Digest", warc.Digest(nil))
	if err := w.Write(rv); err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	r = runCfetch(t, "", "--from-warc", path, filepath.Join(dir, "other.warc.gz"))
	if r.code != 0 || len(r.resps) != 2 {
		t.Fatalf("--from-warc: exit %d, %d responses\n%s", r.code, len(r.resps), r.stderr)
	}
	if got := r.resps[1]; got.Status != 200 || got.Body != "<h1>etag</h1>" || !got.Unchanged {
		t.Errorf("revisit of another tool replayed as %+v", got)
	}
}

// cfetch --from-warc shop*.warc.gz: the shell lists shop-00001.warc.gz
// first, so the revisit of the second run was read before the page it
// refers to and dropped as unresolved.
func TestFromWARCReadsASeriesInOrder(t *testing.T) {
	s := httptest.NewServer(warcSite())
	defer s.Close()
	dir := t.TempDir()
	path := filepath.Join(dir, "crawl.warc.gz")
	args := []string{"--no-robots", "--cache-dir", filepath.Join(dir, "cache"), "--cache-policy", "rfc9111", "--warc", path}
	for round := range 2 {
		if r := runCfetch(t, s.URL+"/etag\n", args...); r.code != 0 {
			t.Fatalf("round %d: exit %d\n%s", round, r.code, r.stderr)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "crawl*.warc.gz"))
	if len(files) != 2 || files[0] != filepath.Join(dir, "crawl-00001.warc.gz") {
		t.Fatalf("glob = %q", files)
	}
	r := runCfetch(t, "", append([]string{"--from-warc"}, files...)...)
	if r.code != 0 || len(r.resps) != 2 {
		t.Fatalf("--from-warc: exit %d, %d responses\n%s", r.code, len(r.resps), r.stderr)
	}
	if got := r.resps[1]; got.Status != 200 || got.Body != "<h1>etag</h1>" || !got.Unchanged {
		t.Errorf("second response %+v", got)
	}
}

// A response record holds the interim responses (103 Early Hints, 100
// Continue) that came before the final one, as they went over the wire:
// --from-warc replayed the page as its first interim response, status 103
// without a body.
func TestFromWARCSkipsInterimResponses(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", "</style.css>; rel=preload; as=style")
		w.WriteHeader(http.StatusEarlyHints)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<h1>hints</h1>")
	}))
	defer s.Close()
	path := filepath.Join(t.TempDir(), "hints.warc.gz")
	r := runCfetch(t, s.URL+"/\n", "--no-robots", "--warc", path)
	if r.code != 0 || r.one(t).Status != 200 {
		t.Fatalf("exit %d, %+v\n%s", r.code, r.resps, r.stderr)
	}
	var resp *warc.Record
	for _, rec := range readWARC(t, path) {
		if rec.Type() == warc.TypeResponse {
			resp = rec
		}
	}
	if resp == nil || !bytes.HasPrefix(resp.Block, []byte("HTTP/1.1 103 Early Hints\r\n")) {
		t.Fatalf("the response record does not start with the 103: %+v", resp)
	}
	r = runCfetch(t, "", "--from-warc", path)
	if r.code != 0 || len(r.resps) != 1 {
		t.Fatalf("--from-warc: exit %d, %d responses\n%s", r.code, len(r.resps), r.stderr)
	}
	if got := r.resps[0]; got.Status != 200 || got.Body != "<h1>hints</h1>" {
		t.Errorf("replayed as %+v", got)
	}
}

// TestWARCRotates: past --warc-max-size the next file of the series is
// started, each with its warcinfo record, and no exchange is lost.
func TestWARCRotates(t *testing.T) {
	s := httptest.NewServer(warcSite())
	defer s.Close()
	dir := t.TempDir()
	path := filepath.Join(dir, "r.warc.gz")
	var urls strings.Builder
	for i := range 12 {
		fmt.Fprintf(&urls, "%s/chunked?%d\n", s.URL, i)
	}
	if r := runCfetch(t, urls.String(), "--no-robots", "--warc", path, "--warc-max-size", "2k"); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "r*.warc.gz"))
	if len(files) < 3 {
		t.Fatalf("files %v", files)
	}
	n := 0
	for _, f := range files {
		recs := readWARC(t, f)
		if recs[0].Type() != warc.TypeWarcinfo {
			t.Errorf("%s starts with %s", f, recs[0].Type())
		}
		for _, r := range recs {
			if r.Type() == warc.TypeResponse {
				n++
			}
		}
	}
	if n != 12 {
		t.Errorf("%d responses in %d files, want 12", n, len(files))
	}
	if r := runCfetch(t, "", append([]string{"--from-warc"}, files...)...); r.code != 0 || len(r.resps) != 12 {
		t.Errorf("--from-warc: exit %d, %d responses\n%s", r.code, len(r.resps), r.stderr)
	}
}

// TestFromWARCDamaged: a truncated file gives the records before the cut
// and names the file and the offset of the cut record (exit 3); records
// that are not HTTP are skipped and counted; a revisit whose original is
// not in the files is reported.
func TestFromWARCDamaged(t *testing.T) {
	s := httptest.NewServer(warcSite())
	defer s.Close()
	dir := t.TempDir()
	path := filepath.Join(dir, "cut.warc.gz")
	if r := runCfetch(t, s.URL+"/plain\n", "--no-robots", "--warc", path); r.code != 0 {
		t.Fatal(r.stderr)
	}
	w, err := warc.Create(path+"-other.warc.gz", warc.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dns := warc.New(warc.TypeResponse, time.Now(), []byte("20261206013000\nexample.com. 300 IN A 93.184.216.34\n"))
	dns.Set("WARC-Target-URI", "dns:example.com")
	dns.Set("Content-Type", "text/dns")
	lost := warc.New(warc.TypeRevisit, time.Now(), []byte("HTTP/1.1 200 OK\r\n\r\n"))
	lost.Set("WARC-Target-URI", "http://gone.example/")
	lost.Set("WARC-Profile", "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest")
	lost.Set("WARC-Payload-Digest", "sha1:AAAA")
	_ = w.Write(dns, lost)
	_ = w.Close()
	data, _ := os.ReadFile(path)
	recs := readWARC(t, path)
	last := recs[len(recs)-1].Offset
	if err := os.WriteFile(path, data[:last+30], 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCfetch(t, "", "--from-warc", path, path+"-other.warc.gz", "--stats", filepath.Join(dir, "stats.json"))
	if r.code != 3 || len(r.resps) != 0 {
		t.Fatalf("exit %d, %d responses, want 3 and 0 (the response was cut)\n%s", r.code, len(r.resps), r.stderr)
	}
	if want := fmt.Sprintf("cfetch: %s: offset %d: truncated record\n", path, last); !strings.Contains(r.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
	}
	if !strings.Contains(r.stderr, "revisit of http://gone.example/: the record it refers to is not in the files read before it") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	stats, _ := os.ReadFile(filepath.Join(dir, "stats.json"))
	for _, want := range []string{`"warc_not_http": 1`, `"warc_corrupt": 1`, `"warc_revisit_unresolved": 1`, `"warc_request": 1`} {
		if !strings.Contains(string(stats), want) {
			t.Errorf("stats lack %s:\n%s", want, stats)
		}
	}
}

// TestFromWARCUnresolvedRevisitExit3: a revisit whose original is in
// none of the files read before it (a deduplicating crawl's WARC given
// without the earlier crawl's) is a page not replayed: it is reported,
// the pages around it are replayed, and the exit status is 3, as for a
// damaged record.
func TestFromWARCUnresolvedRevisitExit3(t *testing.T) {
	s := httptest.NewServer(warcSite())
	defer s.Close()
	dir := t.TempDir()
	path := filepath.Join(dir, "new.warc.gz")
	if r := runCfetch(t, s.URL+"/plain\n", "--no-robots", "--warc", path); r.code != 0 {
		t.Fatal(r.stderr)
	}
	w, err := warc.Create(filepath.Join(dir, "dedup.warc.gz"), warc.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lost := warc.New(warc.TypeRevisit, time.Now(), []byte("HTTP/1.1 200 OK\r\n\r\n"))
	lost.Set("WARC-Target-URI", "http://old.example/page")
	lost.Set("WARC-Profile", "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest")
	lost.Set("WARC-Payload-Digest", "sha1:BBBB")
	lost.Set("WARC-Refers-To", "<urn:uuid:00000000-0000-0000-0000-000000000000>")
	_ = w.Write(lost)
	_ = w.Close()
	r := runCfetch(t, "", "--from-warc", path, filepath.Join(dir, "dedup.warc.gz"))
	if r.code != 3 || len(r.resps) != 1 {
		t.Fatalf("exit %d, %d responses, want 3 and 1 (the page that is in the files)\n%s", r.code, len(r.resps), r.stderr)
	}
	if want := "revisit of http://old.example/page: the record it refers to is not in the files read before it"; !strings.Contains(r.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
	}
}

// WARC-Truncated says whether the response record lacks bytes the server
// sent, and why: a body that did not decode (Content-Encoding: gzip over
// plain text) was recorded whole but marked "disconnect", as if the
// connection had been lost, so replay tools took a whole record for a cut
// one.
func TestWARCTruncatedSaysWhy(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/not-gzip":
			w.Header().Set("Content-Encoding", "gzip")
			fmt.Fprint(w, "this is not gzip at all, and it is the whole body")
		case "/not-gzip-long":
			// cfetch stops at its first bytes: the rest is not read.
			w.Header().Set("Content-Encoding", "gzip")
			fmt.Fprint(w, strings.Repeat("not gzip ", 200_000))
		case "/big":
			fmt.Fprint(w, strings.Repeat("x", 100_000))
		case "/nothing":
			w.WriteHeader(http.StatusNoContent)
		default:
			fmt.Fprint(w, "<h1>whole</h1>")
		}
	}))
	defer s.Close()
	for _, tc := range []struct {
		path, args, want string
	}{
		{"/page", "", ""},
		{"/nothing", "", ""},
		{"/page", "HEAD", ""},
		{"/not-gzip", "", ""},
		{"/not-gzip-long", "", "unspecified"},
		{"/big", "--max-size 10k", "length"},
	} {
		t.Run(tc.path+tc.args, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.warc.gz")
			in := s.URL + tc.path + "\n"
			args := []string{"--no-robots", "--retries", "0", "--warc", path}
			if tc.args == "HEAD" {
				in = fmt.Sprintf(`{"url":%q,"method":"HEAD"}`+"\n", s.URL+tc.path)
			} else if tc.args != "" {
				args = append(args, strings.Fields(tc.args)...)
			}
			r := runCfetch(t, in, args...)
			if len(r.resps) != 1 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			var resp *warc.Record
			for _, rec := range readWARC(t, path) {
				if rec.Type() == warc.TypeResponse {
					resp = rec
				}
			}
			if resp == nil {
				t.Fatal("no response record")
			}
			if got := resp.Get("WARC-Truncated"); got != tc.want {
				t.Errorf("WARC-Truncated %q, want %q (the fetch: %s %s)", got, tc.want, r.resps[0].Error, r.resps[0].ErrorDetail)
			}
		})
	}
}

// warcio (and pywb and Browsertrix, which write with it) writes an
// exchange's response record before its request record, the request
// naming the response in WARC-Concurrent-To. --from-warc learnt the
// method from the request only after it had replayed the response: a
// HEAD was replayed as a GET whose body was missing (error "truncated"),
// a POST as a GET.
func TestFromWARCResponseBeforeItsRequest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "warcio.warc.gz")
	w, err := warc.Create(path, warc.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []struct{ method, path, resp string }{
		{"HEAD", "/head", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/html\r\n\r\n"},
		{"POST", "/post", "HTTP/1.1 200 OK\r\nContent-Length: 7\r\nContent-Type: text/html\r\n\r\nposted!"},
		{"GET", "/get", "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Type: text/html\r\n\r\ngot"},
	} {
		resp := warc.New(warc.TypeResponse, time.Now(), []byte(x.resp))
		resp.Set("WARC-Target-URI", "http://example.com"+x.path)
		resp.Set("Content-Type", "application/http; msgtype=response")
		req := warc.New(warc.TypeRequest, time.Now(), []byte(x.method+" "+x.path+" HTTP/1.1\r\nHost: example.com\r\n\r\n"))
		req.Set("WARC-Target-URI", "http://example.com"+x.path)
		req.Set("Content-Type", "application/http; msgtype=request")
		req.Set("WARC-Concurrent-To", resp.Get("WARC-Record-ID"))
		if err := w.Write(resp, req); err != nil {
			t.Fatal(err)
		}
	}
	_ = w.Close()
	r := runCfetch(t, "", "--from-warc", path)
	if r.code != 0 || len(r.resps) != 3 {
		t.Fatalf("exit %d, %d responses\n%s", r.code, len(r.resps), r.stderr)
	}
	for i, want := range []string{"HEAD", "POST", ""} {
		got := r.resps[i]
		var rq record.Request
		if err := json.Unmarshal(got.Request, &rq); err != nil {
			t.Fatal(err)
		}
		if rq.Method != want || got.Error != "" || got.Status != 200 {
			t.Errorf("%s: replayed as %s %d %s %s, want %q and no error", got.URL, rq.Method, got.Status, got.Error, got.ErrorDetail, want)
		}
	}
}

// A WARC file gzipped whole (gzip crawl.warc) is one gzip member: a
// revisit in it was given the file's first record, its warcinfo, for the
// page it refers to, and replayed as an error, exit 0.
func TestFromWARCRevisitInAFileGzippedWhole(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "crawl.warc")
	w, err := warc.Create(plain, warc.WriterOptions{Info: []warc.Field{{Name: "software", Value: "test"}}})
	if err != nil {
		t.Fatal(err)
	}
	const head, body = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 13\r\n\r\n", "<h1>same</h1>"
	page := warc.New(warc.TypeResponse, time.Now(), []byte(head+body))
	page.Set("WARC-Target-URI", "http://example.com/a")
	page.Set("WARC-Payload-Digest", warc.Digest([]byte(body)))
	rv := warc.New(warc.TypeRevisit, time.Now(), []byte(head))
	rv.Set("WARC-Target-URI", "http://example.com/b")
	rv.Set("WARC-Profile", "http://netpreserve.org/warc/1.0/revisit/identical-payload-digest")
	rv.Set("WARC-Payload-Digest", page.Get("WARC-Payload-Digest"))
	rv.Set("WARC-Refers-To", page.Get("WARC-Record-ID"))
	if err := w.Write(page, rv); err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	data, _ := os.ReadFile(plain)
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	_, _ = zw.Write(data)
	_ = zw.Close()
	whole := plain + ".gz"
	if err := os.WriteFile(whole, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCfetch(t, "", "--from-warc", whole)
	if r.code != 0 || len(r.resps) != 2 {
		t.Fatalf("exit %d, %d responses\n%s", r.code, len(r.resps), r.stderr)
	}
	for _, got := range r.resps {
		if got.Status != 200 || got.Body != body || got.Error != "" {
			t.Errorf("%s replayed as %d %q %s %s", got.URL, got.Status, got.Body, got.Error, got.ErrorDetail)
		}
	}
}

// wget writes its revisit records (--warc-dedup) with "WARC-Truncated:
// length": the block is the response's header, its payload left out for
// the original's. --from-warc gave the original's whole payload and said
// all the same "recorded truncated in the WARC file"; what is said now is
// the original's truncation.
func TestFromWARCRevisitTruncation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wget.warc.gz")
	w, err := warc.Create(path, warc.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const head = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n"
	for _, x := range []struct{ path, truncated string }{{"/whole", ""}, {"/cut", "time"}} {
		page := warc.New(warc.TypeResponse, time.Now(), []byte(head+"<h1>"+x.path[1:]+"</h1>"))
		page.Set("WARC-Target-URI", "http://example.com"+x.path)
		page.Set("WARC-Payload-Digest", warc.Digest([]byte("<h1>"+x.path[1:]+"</h1>")))
		if x.truncated != "" {
			page.Set("WARC-Truncated", x.truncated)
		}
		rv := warc.New(warc.TypeRevisit, time.Now(), []byte(head))
		rv.Set("WARC-Target-URI", "http://example.com"+x.path+"/again")
		rv.Set("WARC-Refers-To", page.Get("WARC-Record-ID"))
		rv.Set("WARC-Profile", "http://netpreserve.org/warc/1.0/revisit/identical-payload-digest")
		rv.Set("WARC-Truncated", "length")
		rv.Set("WARC-Payload-Digest", page.Get("WARC-Payload-Digest"))
		if err := w.Write(page, rv); err != nil {
			t.Fatal(err)
		}
	}
	_ = w.Close()
	r := runCfetch(t, "", "--from-warc", path)
	if r.code != 0 || len(r.resps) != 4 {
		t.Fatalf("exit %d, %d responses\n%s", r.code, len(r.resps), r.stderr)
	}
	for _, got := range r.resps {
		want := []string(nil)
		if strings.Contains(got.URL, "/cut") {
			want = []string{"recorded truncated in the WARC file (WARC-Truncated: time)"}
		}
		if !slices.Equal(got.Warnings, want) || got.Status != 200 || got.Error != "" {
			t.Errorf("%s: replayed as %d %q, warnings %q, want %q", got.URL, got.Status, got.Body, got.Warnings, want)
		}
	}
}

// A server that ends its header lines with a bare LF (old servers and
// devices do; HTTP readers take it) had its response recorded without a
// WARC-Payload-Digest: the end of the header was looked for as CRLF CRLF
// only.
func TestWARCPayloadDigestAfterBareLFHeader(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					l, err := br.ReadString('\n')
					if err != nil || l == "\r\n" {
						break
					}
				}
				_, _ = io.WriteString(c, "HTTP/1.1 200 OK\nContent-Type: text/html\nContent-Length: 5\nConnection: close\n\nhello")
			}()
		}
	}()
	path := filepath.Join(t.TempDir(), "lf.warc.gz")
	if r := runCfetch(t, "http://"+ln.Addr().String()+"/\n", "--no-robots", "--warc", path); r.code != 0 || r.one(t).Body != "hello" {
		t.Fatalf("exit %d, %+v\n%s", r.code, r.resps, r.stderr)
	}
	n := 0
	for _, rec := range readWARC(t, path) {
		if rec.Type() != warc.TypeResponse {
			continue
		}
		n++
		if got, want := rec.Get("WARC-Payload-Digest"), warc.Digest([]byte("hello")); got != want {
			t.Errorf("WARC-Payload-Digest %q, want %q (of %q)", got, want, rec.Block)
		}
	}
	if n != 1 {
		t.Fatalf("%d response records", n)
	}
}

// A "deflate" (zlib) response sent chunked: the zlib reader stops at the
// end of its stream, before the last chunk, so the body was never read to
// its end. The response record lacked the last chunk and said
// WARC-Truncated: length, though the page had come whole (and the
// connection was not reused).
func TestWARCDeflateChunkedIsReadToItsEnd(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "deflate")
		zw := zlib.NewWriter(w)
		fmt.Fprint(zw, strings.Repeat("<p>hello</p>\n", 200))
		_ = zw.Close()
		w.(http.Flusher).Flush() // the last chunk comes after
	}))
	defer s.Close()
	path := filepath.Join(t.TempDir(), "deflate.warc.gz")
	r := runCfetch(t, s.URL+"/\n", "--no-robots", "--warc", path)
	if r.code != 0 || !strings.HasPrefix(r.one(t).Body, "<p>hello</p>") {
		t.Fatalf("exit %d, %+v\n%s", r.code, r.resps, r.stderr)
	}
	for _, rec := range readWARC(t, path) {
		if rec.Type() != warc.TypeResponse {
			continue
		}
		if rec.Get("WARC-Truncated") != "" || !bytes.HasSuffix(rec.Block, []byte("\r\n0\r\n\r\n")) {
			t.Errorf("WARC-Truncated %q, the block ends %q, want no WARC-Truncated and the last chunk", rec.Get("WARC-Truncated"), rec.Block[max(0, len(rec.Block)-12):])
		}
	}
}

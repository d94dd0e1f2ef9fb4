package cfetch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/record"
)

// Tests named after what a hostile site did to a crawl loop.

// TestInvalidRequestStillGetsItsResponse: a request cfetch cannot send
// (bad method, a header or user agent with CR/LF, a field of the wrong
// type, no url) is reported, and still answered with
// "error":"invalid_request" carrying the request and its lease, so the
// loop settles it. Lines that are no request stay dropped.
func TestInvalidRequestStillGetsItsResponse(t *testing.T) {
	t.Parallel()
	s := newFaultServer()
	defer s.Close()
	lines := []string{
		`{"kind":"request","url":"` + s.URL + `/ok","method":"G ET","lease":"l1"}`,
		`{"kind":"request","url":"` + s.URL + `/ok","headers":{"X":"a\r\nY: b"},"lease":"l2"}`,
		`{"kind":"request","url":"` + s.URL + `/ok","useragent":"bot\nX: 1","lease":"l3"}`,
		`{"url":"` + s.URL + `/ok","priority":"high","lease":"l4"}`,
		`{"kind":"request","depth":1,"lease":"l5"}`,
		`{"url":5,"lease":"l6"}`,
		`{"foo":1}`,
		`[1]`,
		`{"kind":"request","url":"` + s.URL + `/ok","lease":"ok"}`,
	}
	stats := filepath.Join(t.TempDir(), "stats.json")
	res := runCfetch(t, strings.Join(lines, "\n")+"\n", append(fast, "--stats", stats)...)
	if res.code != cli.ExitPartial {
		t.Errorf("exit %d, want 3", res.code)
	}
	got := map[string]record.Response{}
	for _, r := range res.resps {
		var req struct{ Lease string }
		json.Unmarshal(r.Request, &req)
		got[req.Lease] = r
	}
	for i, lease := range []string{"l1", "l2", "l3", "l4", "l5", "l6"} {
		r, ok := got[lease]
		if !ok {
			t.Errorf("no response for line %d (lease %s)", i+1, lease)
			continue
		}
		if r.Error != ErrInvalidRequest || r.Status != 0 || r.Body != "" {
			t.Errorf("line %d: error %q status %d, want invalid_request and no fetch", i+1, r.Error, r.Status)
		}
		if string(r.Request) != lines[i] {
			t.Errorf("line %d: request\n got %s\nwant %s", i+1, r.Request, lines[i])
		}
		if pos := fmt.Sprintf("cfetch: <stdin>:%d: invalid record: ", i+1); !strings.Contains(res.stderr, pos) {
			t.Errorf("stderr lacks %q:\n%s", pos, res.stderr)
		}
	}
	if got["l1"].URL != s.URL+"/ok" || got["l5"].URL != "" || got["l6"].URL != "" {
		t.Errorf("urls %q %q %q", got["l1"].URL, got["l5"].URL, got["l6"].URL)
	}
	if r := got["ok"]; r.Status != 200 {
		t.Errorf("the valid request: status %d, error %q", r.Status, r.Error)
	}
	if len(res.resps) != 7 {
		t.Errorf("got %d responses, want 7", len(res.resps))
	}
	b, err := os.ReadFile(stats)
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		In, Out int
		Dropped map[string]int
		Errors  map[string]int
	}
	json.Unmarshal(b, &st)
	if st.In != 9 || st.Out != 7 || st.Dropped["invalid"] != 2 || st.Errors[ErrInvalidRequest] != 6 {
		t.Errorf("stats: %s", b)
	}
}

// TestResponseNeverOverTheLineLimit: a 12 MiB text body of control bytes
// escapes to 72 MiB of JSON, over the 64 MiB a record line may have; it
// is answered "too_large" without a body instead of a line nobody can
// read.
func TestResponseNeverOverTheLineLimit(t *testing.T) {
	t.Parallel()
	ctrl := func(n int) []byte { return bytes.Repeat([]byte{1}, n) }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		n := 1 << 20
		if r.URL.Path == "/big" {
			n = 12 << 20
		}
		w.Write(ctrl(n))
	}))
	defer srv.Close()
	var out, errb bytes.Buffer
	// 12 MiB of control characters, each escaped to six bytes, under -race
	// on a busy machine can take longer than fast's 10 s: this test is not
	// about timeouts, so it allows 10 minutes.
	code := execute(t.Context(), append(append([]string{"-q", "--no-robots"}, fast...), "--timeout", "10m"),
		strings.NewReader(srv.URL+"/big\n"+srv.URL+"/small\n"), &out, &errb)
	if code != 0 {
		t.Errorf("exit %d: %s", code, errb.String())
	}
	for line := range bytes.Lines(out.Bytes()) {
		if len(line) > maxRecordLine {
			t.Errorf("a %d-byte line, over the %d limit", len(line), maxRecordLine)
		}
		var r record.Response
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.HasSuffix(r.URL, "/big"):
			if r.Error != ErrTooLarge || r.Body != "" || r.Status != 200 || !strings.Contains(r.ErrorDetail, "line limit") {
				t.Errorf("/big: error %q (%s), status %d, body %d bytes", r.Error, r.ErrorDetail, r.Status, len(r.Body))
			}
		case strings.HasSuffix(r.URL, "/small"):
			if r.Error != "" || len(r.Body) != 1<<20 {
				t.Errorf("/small: error %q, body %d bytes", r.Error, len(r.Body))
			}
		}
	}
}

func TestJSONStringLen(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "abc", "\x01\x1f\x7f", "\"\\/<>&", "\b\f\n\r\t", "é日本\u2028\u2029", "\xff\xfe a \xe2\x80", strings.Repeat("\x00é", 100)} {
		b, _ := json.Marshal(s)
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.Encode(s)
		want := buf.Len() - 1
		if got := record.StringLen(s); got != want {
			t.Errorf("record.StringLen(%q) = %d, want %d (%s)", s, got, want, b)
		}
	}
}

// TestStdLogIsAWarning: what net/http writes through the standard logger
// comes out in cfetch's format.
func TestStdLogIsAWarning(t *testing.T) {
	t.Parallel()
	var errb bytes.Buffer
	tool := cli.NewTool("cfetch", &errb)
	restore := routeStdLog(tool)
	log.Printf("Unsolicited response received on idle HTTP channel starting with %q; err=<nil>", "X")
	restore()
	want := "cfetch: warning: a server sent data no request asked for, starting with \"X\": its connection was closed\n"
	if errb.String() != want {
		t.Errorf("stderr %q, want %q", errb.String(), want)
	}
}

// TestExtraBytesAfterTheBodyLogNothingRaw: a server that sends more than
// its Content-Length makes net/http log; every stderr line is still
// cfetch's.
func TestExtraBytesAfterTheBodyLogNothingRaw(t *testing.T) {
	t.Parallel()
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
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					if req.URL.Path == "/robots.txt" {
						fmt.Fprint(c, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
						continue
					}
					fmt.Fprint(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n\r\nEXTRA")
				}
			}()
		}
	}()
	u := "http://" + ln.Addr().String()
	var out, errb bytes.Buffer
	execute(t.Context(), append([]string{}, fast...), strings.NewReader(u+"/a\n"+u+"/b\n"), &out, &errb)
	t.Logf("stderr:\n%s", errb.String())
	for line := range strings.Lines(errb.String()) {
		if !strings.HasPrefix(line, "cfetch: ") {
			t.Errorf("stderr line not in cfetch's format: %q", line)
		}
		if strings.Contains(line, "err=<nil>") || strings.Contains(line, "Unsolicited") {
			t.Errorf("stderr line in net/http's words: %q", line)
		}
	}
}

// TestRobotsOver500KiBIsParsed: RFC 9309 §2.5: the first 500 KiB of a
// larger robots.txt are parsed (up to its last complete line), not
// ignored.
func TestRobotsOver500KiBIsParsed(t *testing.T) {
	t.Parallel()
	var robots strings.Builder
	robots.WriteString("User-agent: *\nDisallow: /private\n")
	for robots.Len() < 500<<10-20 {
		robots.WriteString("# padding padding padding padding padding padding\n")
	}
	robots.WriteString("Disallow: /cut-in-the-middle-of-this-line\n")
	for robots.Len() < 600<<10 {
		robots.WriteString("Disallow: /after\n")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			w.Write([]byte(robots.String()))
			return
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	res := runCfetch(t, srv.URL+"/private/x\n"+srv.URL+"/after\n"+srv.URL+"/cut-in-the-middle-of-this-line\n", fast...)
	errs := map[string]string{}
	for _, r := range res.resps {
		errs[strings.TrimPrefix(r.URL, srv.URL)] = r.Error
	}
	want := map[string]string{"/private/x": ErrRobots, "/after": "", "/cut-in-the-middle-of-this-line": ""}
	for k, v := range want {
		if errs[k] != v {
			t.Errorf("%s: error %q, want %q", k, errs[k], v)
		}
	}
}

// TestIDNHostIsRecordedInPunycode: the response's url names an IDN host
// the way it went on the wire, xn--…, not percent-encoded; redirects too.
func TestIDNHostIsRecordedInPunycode(t *testing.T) {
	t.Parallel()
	var port string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/to-idn" {
			w.Header().Set("Location", "http://bücher.test:"+port+"/x")
			w.WriteHeader(http.StatusFound)
			return
		}
		if r.Host != "xn--bcher-kva.test:"+port {
			w.WriteHeader(http.StatusBadRequest)
		}
	}))
	defer srv.Close()
	port = srv.URL[strings.LastIndexByte(srv.URL, ':')+1:]
	res := runCfetch(t, "http://bücher.test:"+port+"/x\nhttp://a.test:"+port+"/to-idn\n",
		append([]string{"--no-robots", "-c", "1", "--resolve", "*:" + port + ":127.0.0.1"}, fast...)...)
	if len(res.resps) != 2 {
		t.Fatalf("%d responses: %s", len(res.resps), res.stderr)
	}
	for _, r := range res.resps {
		if want := "http://xn--bcher-kva.test:" + port + "/x"; r.URL != want || r.Status != 200 {
			t.Errorf("url %q status %d error %q, want %q", r.URL, r.Status, r.ErrorDetail, want)
		}
	}
}

// TestBackslashInLocation: browsers read a backslash in an http(s)
// Location as a slash (before the query).
func TestBackslashInLocation(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/r/bs":
			w.Header().Set("Location", `\target?bs=\x`)
			w.WriteHeader(http.StatusFound)
		case "/r/rel":
			w.Header().Set("Location", `..\target`)
			w.WriteHeader(http.StatusFound)
		default:
			w.Write([]byte(r.URL.RequestURI()))
		}
	}))
	defer srv.Close()
	res := runCfetch(t, srv.URL+"/r/bs\n"+srv.URL+"/r/rel\n", append([]string{"--no-robots"}, fast...)...)
	got := map[string]bool{}
	for _, r := range res.resps {
		got[strings.TrimPrefix(r.URL, srv.URL)+" "+r.Body] = true
	}
	for _, want := range []string{`/target?bs=%5Cx /target?bs=%5Cx`, `/target /target`} {
		if !got[want] {
			t.Errorf("no response %q: %v", want, got)
		}
	}
}

func TestResolveLocation(t *testing.T) {
	t.Parallel()
	base, _ := url.Parse("http://a.test/r/x")
	for loc, want := range map[string]string{
		`\target?q=\`:      `http://a.test/target?q=\`,
		`\\b.test\p`:       `http://b.test/p`,
		`https:\\c.test\p`: `https://c.test/p`,
		`/plain`:           `http://a.test/plain`,
		`ftp://d.test/a\b`: `ftp://d.test/a%5Cb`,
		`t#f\g`:            `http://a.test/r/t#f%5Cg`,
	} {
		u, err := resolveLocation(base, loc)
		if err != nil || u.String() != want {
			t.Errorf("resolveLocation(%q) = %v, %v; want %s", loc, u, err, want)
		}
	}
}

// TestUnsafeURLsAreSentEncoded: spaces and non-ASCII in a request's query,
// or a redirect's, go out percent-encoded as browsers and Scrapy send them
// (w3lib's safe_url_string), and the record says what was requested.
func TestUnsafeURLsAreSentEncoded(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/r/space" {
			w.Header().Set("Location", "/target?q=a b c")
			w.WriteHeader(http.StatusFound)
			return
		}
		w.Write([]byte(r.RequestURI))
	}))
	defer srv.Close()
	res := runCfetch(t, `{"kind":"request","url":"`+srv.URL+`/t ä?q=日本&x=a b"}`+"\n"+srv.URL+"/r/space\n", append([]string{"--no-robots"}, fast...)...)
	got := map[string]string{}
	for _, r := range res.resps {
		got[strings.TrimPrefix(r.URL, srv.URL)] = r.Body
	}
	for url, body := range map[string]string{
		"/t%20%C3%A4?q=%E6%97%A5%E6%9C%AC&x=a%20b": "/t%20%C3%A4?q=%E6%97%A5%E6%9C%AC&x=a%20b",
		"/target?q=a%20b%20c":                      "/target?q=a%20b%20c",
	} {
		if got[url] != body {
			t.Errorf("response for %s: body %q; all: %v", url, got[url], got)
		}
	}
}

// TestOffsiteRedirect: a redirect out of the request's allowed_domains is
// not followed (Scrapy's OffsiteMiddleware), unless dont_filter; one within
// them is.
func TestOffsiteRedirect(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/r/off":
			w.Header().Set("Location", strings.Replace("http://"+r.Host+"/x", "127.0.0.1", "localhost", 1))
			w.WriteHeader(http.StatusFound)
		case "/r/on":
			w.Header().Set("Location", "/x")
			w.WriteHeader(http.StatusFound)
		default:
			w.Write([]byte("ok"))
		}
	}))
	defer srv.Close()
	in := `{"kind":"request","url":"` + srv.URL + `/r/off","allowed_domains":["127.0.0.1"]}
{"kind":"request","url":"` + srv.URL + `/r/off","allowed_domains":["127.0.0.1"],"dont_filter":true,"attrs":{"n":2}}
{"kind":"request","url":"` + srv.URL + `/r/on","allowed_domains":["127.0.0.1"]}
`
	res := runCfetch(t, in, append([]string{"--no-robots", "--resolve", "localhost:" + strings.TrimPrefix(srv.URL, "http://127.0.0.1:") + ":127.0.0.1"}, fast...)...)
	var offsite, followed int
	for _, r := range res.resps {
		switch {
		case r.Error == ErrOffsiteRedirect && strings.HasPrefix(r.URL, "http://localhost:"):
			offsite++
		case r.Error == "" && r.Status == 200:
			followed++
		default:
			t.Errorf("unexpected response %+v", r)
		}
	}
	if offsite != 1 || followed != 2 {
		t.Errorf("offsite %d, followed %d; want 1 and 2", offsite, followed)
	}
}

// TestThousandsOfCookiesAPage: a site that sets 5000 new cookies on each
// page gets back a Cookie header that stays within maxCookieHeaderSize,
// from at most maxCookiesPerSite cookies, page after page, as a browser
// would send it. The jar kept them all, and sent them all.
func TestThousandsOfCookiesAPage(t *testing.T) {
	t.Parallel()
	var (
		mu      sync.Mutex
		longest int
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		longest = max(longest, len(r.Header.Get("Cookie")))
		mu.Unlock()
		// Written raw: 5000 headers in one response.
		c, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer c.Close()
		buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n")
		for i := range 5000 {
			fmt.Fprintf(buf, "Set-Cookie: %s_%d=%s\r\n", strings.Trim(r.URL.Path, "/"), i, strings.Repeat("v", 40))
		}
		buf.WriteString("\r\nok")
		buf.Flush()
	}))
	defer srv.Close()
	var in strings.Builder
	for i := range 5 {
		fmt.Fprintf(&in, "%s/p%d\n", srv.URL, i)
	}
	r := runCfetch(t, in.String(), "--per-host", "1")
	if r.code != 0 || len(r.resps) != 5 {
		t.Fatalf("exit %d, %d responses: %s", r.code, len(r.resps), r.stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if longest == 0 || longest > maxCookieHeaderSize {
		t.Errorf("longest Cookie header sent: %d bytes, want 1 to %d", longest, maxCookieHeaderSize)
	}
}

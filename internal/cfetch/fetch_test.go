package cfetch

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/record"
)

// TestFaults runs one request per misbehaving server path and checks the
// record that comes out: no hang past the timeout, no crash, the right code.
func TestFaults(t *testing.T) {
	t.Parallel()
	s := newFaultServer()
	t.Cleanup(s.Close)
	tlsURL := "https://" + strings.TrimPrefix(s.URL, "http://")
	tests := []struct {
		name      string
		url       string
		args      []string
		wantErr   string
		wantCode  int
		wantRetry int
		check     func(t *testing.T, r record.Response)
	}{
		{name: "ok", url: s.URL + "/ok", wantCode: 200, check: func(t *testing.T, r record.Response) {
			wantBody(t, r, "Hello, wörld", "utf-8", SourceHeader)
		}},
		{name: "404 is a status not an error", url: s.URL + "/status/404", wantCode: 404},
		{name: "500 after retries keeps its status", url: s.URL + "/status/500", args: []string{"--retries", "2"}, wantCode: 500, wantRetry: 2},
		{name: "connection reset", url: s.URL + "/reset", wantErr: ErrReset},
		{name: "reset is retried", url: s.URL + "/reset", args: []string{"--retries", "1"}, wantErr: ErrReset, wantRetry: 1},
		{name: "server never answers", url: s.URL + "/hang", args: []string{"--timeout", "500ms"}, wantErr: ErrTimeout},
		{name: "body shorter than Content-Length", url: s.URL + "/short", wantErr: ErrTruncated, wantCode: 200},
		// Compressed data that stops where the connection closed, in a
		// body only the close ends, is a body cut short (retried); the
		// same data in a whole message is broken data.
		{name: "gzip body cut by the close", url: s.URL + "/cutclose/gzip", args: []string{"--retries", "1"}, wantErr: ErrTruncated, wantCode: 200, wantRetry: 1, check: func(t *testing.T, r record.Response) {
			if want := "body ended early: the connection closed in the middle of its gzip data (the response had no Content-Length)"; r.ErrorDetail != want {
				t.Errorf("detail %q, want %q", r.ErrorDetail, want)
			}
		}},
		{name: "br body cut by the close", url: s.URL + "/cutclose/br", wantErr: ErrTruncated, wantCode: 200},
		{name: "zstd body cut by the close", url: s.URL + "/cutclose/zstd", wantErr: ErrTruncated, wantCode: 200},
		{name: "deflate body cut by the close", url: s.URL + "/cutclose/deflate", wantErr: ErrTruncated, wantCode: 200},
		{name: "raw deflate body cut by the close", url: s.URL + "/cutclose/rawdeflate", wantErr: ErrTruncated, wantCode: 200},
		{name: "gzip body cut inside its Content-Length", url: s.URL + "/cutlength/gzip", wantErr: ErrDecode, wantCode: 200},
		{name: "zstd body cut inside its Content-Length", url: s.URL + "/cutlength/zstd", wantErr: ErrDecode, wantCode: 200},
		// net/http hands a 101's connection over as its body: it is no
		// page, and reading it would last until --timeout.
		{name: "101 Switching Protocols unasked", url: s.URL + "/switch", args: []string{"--timeout", "30s"}, wantErr: ErrProtocol, wantCode: 101, check: func(t *testing.T, r record.Response) {
			if want := `the server switched to another protocol (101 Switching Protocols, Upgrade: "websocket"): cfetch speaks HTTP`; r.ErrorDetail != want || r.Body != "" || r.BodyBase64 != "" || r.DurationMS > 20000 {
				t.Errorf("detail %q body %q %q duration %v ms", r.ErrorDetail, r.Body, r.BodyBase64, r.DurationMS)
			}
		}},
		// RFC 9110 §15: a status is 100–599. Below 100 is no HTTP
		// status (curl: "Unsupported response code"); 600–999 is kept
		// as sent, as curl keeps it.
		{name: "status 000", url: s.URL + "/rawstatus/000", wantErr: ErrProtocol, check: func(t *testing.T, r record.Response) {
			if want := `invalid status "000": an HTTP status is 100 to 599`; r.ErrorDetail != want || r.Body != "" {
				t.Errorf("detail %q body %q", r.ErrorDetail, r.Body)
			}
		}},
		{name: "status 099", url: s.URL + "/rawstatus/099", wantErr: ErrProtocol},
		{name: "status 600 kept", url: s.URL + "/rawstatus/600", wantCode: 600},
		{name: "invalid gzip", url: s.URL + "/badgzip", wantErr: ErrDecode, wantCode: 200, check: func(t *testing.T, r record.Response) {
			if r.Body != "" || r.BodyBase64 != "" {
				t.Errorf("a decode error keeps no body: %q %q", r.Body, r.BodyBase64)
			}
		}},
		{name: "unknown charset", url: s.URL + "/badcharset", wantCode: 200, check: func(t *testing.T, r record.Response) {
			wantBody(t, r, frenchText, "utf-8", SourceSniff)
			wantWarning(t, r, `unknown charset "x-nonexistent"`)
		}},
		{name: "redirect loop", url: s.URL + "/loop", args: []string{"--retries", "2"}, wantErr: ErrRedirectLoop, check: func(t *testing.T, r record.Response) {
			if len(r.Redirects) != 2 || r.URL != s.URL+"/loop" {
				t.Errorf("url %s redirects %v", r.URL, r.Redirects)
			}
		}},
		{name: "redirect chain", url: s.URL + "/redirect/2", wantCode: 200, check: func(t *testing.T, r record.Response) {
			want := []record.Redirect{{URL: s.URL + "/redirect/2", Status: 302}, {URL: s.URL + "/redirect/1", Status: 302}, {URL: s.URL + "/redirect/0", Status: 301}}
			if r.URL != s.URL+"/ok" || !equalRedirects(r.Redirects, want) {
				t.Errorf("url %s redirects %v", r.URL, r.Redirects)
			}
		}},
		{name: "too many redirects", url: s.URL + "/redirect/5", args: []string{"--max-redirects", "2"}, wantErr: ErrTooManyRedirects},
		{name: "no redirects", url: s.URL + "/redirect/0", args: []string{"--no-redirects"}, wantCode: 301, check: func(t *testing.T, r record.Response) {
			if r.Headers["location"] != "/ok" || len(r.Redirects) != 0 {
				t.Errorf("headers %v redirects %v", r.Headers, r.Redirects)
			}
		}},
		{name: "redirect to ftp", url: s.URL + "/redirect-to/302?to=ftp://x/", wantErr: ErrUnsupportedScheme},
		{name: "unparsable Location is invalid_url, not retried", url: s.URL + "/redirect-to/302?to=http://a%20b/", args: []string{"--retries", "2"}, wantErr: ErrInvalidURL, check: func(t *testing.T, r record.Response) {
			want := []record.Redirect{{URL: s.URL + "/redirect-to/302?to=http://a%20b/", Status: 302}}
			if r.URL != "http://a b/" || !equalRedirects(r.Redirects, want) || !strings.Contains(r.ErrorDetail, `redirect to an invalid URL "http://a b/"`) {
				t.Errorf("url %s redirects %v detail %q", r.URL, r.Redirects, r.ErrorDetail)
			}
		}},
		// A '%' that starts no escape is no reason to stop: browsers and
		// curl follow such a Location, and it is sent as "%25".
		{name: "Location with a stray % is followed", url: s.URL + "/redirect-to/302?to=/a%25zz", wantCode: 404, check: func(t *testing.T, r record.Response) {
			if r.URL != s.URL+"/a%25zz" || len(r.Redirects) != 1 {
				t.Errorf("url %s redirects %v", r.URL, r.Redirects)
			}
		}},
		{name: "unparsable Location host", url: s.URL + "/redirect-to/301?to=http://%5B::1/", args: []string{"--retries", "2"}, wantErr: ErrInvalidURL},
		{name: "Location with a port out of range is invalid_url, not retried", url: s.URL + "/redirect-to/301?to=http://127.0.0.1:99999/", args: []string{"--retries", "2"}, wantErr: ErrInvalidURL, check: func(t *testing.T, r record.Response) {
			if r.Retries != 0 || !strings.Contains(r.ErrorDetail, "port 99999 is out of range") {
				t.Errorf("retries %d detail %q", r.Retries, r.ErrorDetail)
			}
		}},
		{name: "Content-Length not a number", url: s.URL + "/badlength/word", wantErr: ErrProtocol, check: func(t *testing.T, r record.Response) {
			if r.ErrorDetail != `invalid Content-Length "ten"` {
				t.Errorf("detail %q", r.ErrorDetail)
			}
		}},
		{name: "negative Content-Length", url: s.URL + "/badlength/negative", wantErr: ErrProtocol, check: func(t *testing.T, r record.Response) {
			if r.ErrorDetail != `invalid Content-Length "-5"` {
				t.Errorf("detail %q", r.ErrorDetail)
			}
		}},
		{name: "two different Content-Lengths", url: s.URL + "/badlength/conflict", wantErr: ErrProtocol, check: func(t *testing.T, r record.Response) {
			if r.ErrorDetail != `conflicting Content-Length headers: "2", "3"` {
				t.Errorf("detail %q", r.ErrorDetail)
			}
		}},
		// One length listed twice in one header (RFC 9110 §8.6 allows
		// reading it): Go's client refuses it; the detail says so.
		{name: "one Content-Length listed twice", url: s.URL + "/badlength/repeated", wantErr: ErrProtocol, check: func(t *testing.T, r record.Response) {
			if want := `Content-Length "2, 2" lists one length more than once: not read (browsers and curl read it, Go's HTTP client does not)`; r.ErrorDetail != want {
				t.Errorf("detail %q, want %q", r.ErrorDetail, want)
			}
		}},
		{name: "503 once then 200", url: s.URL + "/flaky/a", args: []string{"--retries", "2"}, wantCode: 200, wantRetry: 1},
		{name: "429 with Retry-After 1", url: s.URL + "/ratelimit/a", args: []string{"--retries", "2"}, wantCode: 200, wantRetry: 1},
		{name: "Retry-After over the max", url: s.URL + "/ratelimit-long", args: []string{"--retries", "2"}, wantCode: 429, check: func(t *testing.T, r record.Response) {
			wantWarning(t, r, "not retried: Retry-After 1h0m0s is over --retry-after-max 1m0s")
		}},
		{name: "50 MiB body streamed", url: s.URL + "/big/52428800", args: []string{"--max-size", "1MiB"}, wantErr: ErrTooLarge, wantCode: 200},
		{name: "50 MiB Content-Length", url: s.URL + "/big/52428800?cl=1", args: []string{"--max-size", "1MiB"}, wantErr: ErrTooLarge, wantCode: 200},
		{name: "body at the limit", url: s.URL + "/big/1048576", args: []string{"--max-size", "1MiB", "--warn-size", "512KiB"}, wantCode: 200, check: func(t *testing.T, r record.Response) {
			if r.Size != 1<<20 {
				t.Errorf("size %d", r.Size)
			}
			wantWarning(t, r, "body of 1048576 bytes is over --warn-size 512KiB")
		}},
		{name: "gzip bomb", url: s.URL + "/bomb", args: []string{"--max-size", "1MiB"}, wantErr: ErrTooLarge, wantCode: 200},
		{name: "TLS to a plain HTTP port", url: tlsURL + "/ok", wantErr: ErrProtocol},
		{name: "garbage instead of HTTP", url: s.URL + "/garbage", wantErr: ErrProtocol},
		{name: "binary body", url: s.URL + "/binary", wantCode: 200, check: func(t *testing.T, r record.Response) {
			got, err := base64.StdEncoding.DecodeString(r.BodyBase64)
			if err != nil || !bytes.Equal(got, binaryBody()) || r.Body != "" || r.Encoding != "" {
				t.Errorf("body_base64 %q (%v), body %q, encoding %q", r.BodyBase64, err, r.Body, r.Encoding)
			}
		}},
		{name: "shift_jis in meta", url: s.URL + "/meta/sjis", wantCode: 200, check: func(t *testing.T, r record.Response) {
			wantBody(t, r, japaneseText, "shift_jis", SourceMeta)
		}},
		{name: "windows-1252 in meta http-equiv", url: s.URL + "/meta/1252", wantCode: 200, check: func(t *testing.T, r record.Response) {
			wantBody(t, r, frenchText, "windows-1252", SourceMeta)
		}},
		{name: "euc-kr in meta", url: s.URL + "/meta/euckr", wantCode: 200, check: func(t *testing.T, r record.Response) {
			wantBody(t, r, koreanText, "euc-kr", SourceMeta)
		}},
		{name: "undeclared shift_jis", url: s.URL + "/sniff", wantCode: 200, check: func(t *testing.T, r record.Response) {
			wantBody(t, r, japaneseText, "shift_jis", SourceSniff)
		}},
		{name: "tis-620 in meta", url: s.URL + "/meta/tis620", wantCode: 200, check: func(t *testing.T, r record.Response) {
			wantBody(t, r, thaiShop, "windows-874", SourceMeta)
		}},
		{name: "undeclared thai", url: s.URL + "/sniff/thai", wantCode: 200, check: func(t *testing.T, r record.Response) {
			wantBody(t, r, thaiShop, "windows-874", SourceSniff)
		}},
		{name: "BOM beats the header", url: s.URL + "/bom", wantCode: 200, check: func(t *testing.T, r record.Response) {
			wantBody(t, r, "bom wins: "+frenchText, "utf-16le", SourceBOM)
			if strings.HasPrefix(r.Body, "\ufeff") {
				t.Error("BOM kept in the body")
			}
		}},
		{name: "no Content-Type", url: s.URL + "/nocontenttype", wantCode: 200, check: func(t *testing.T, r record.Response) {
			wantBody(t, r, "sniffed", "utf-8", SourceDefault)
		}},
		{name: "HTML as application/octet-stream", url: s.URL + "/octetstream/html", wantCode: 200, check: func(t *testing.T, r record.Response) {
			wantBody(t, r, "sniffed", "utf-8", SourceDefault)
		}},
		{name: "binary as binary/octet-stream", url: s.URL + "/octetstream/binary", wantCode: 200, check: func(t *testing.T, r record.Response) {
			got, err := base64.StdEncoding.DecodeString(r.BodyBase64)
			if err != nil || !bytes.Equal(got, binaryBody()) || r.Body != "" || r.Encoding != "" {
				t.Errorf("body_base64 %q (%v), body %q, encoding %q", r.BodyBase64, err, r.Body, r.Encoding)
			}
		}},
		{name: "connection refused", url: refusedURL(t), wantErr: ErrRefused},
	}
	for _, enc := range []string{"gzip", "br", "zstd", "deflate", "rawdeflate"} {
		tests = append(tests, struct {
			name      string
			url       string
			args      []string
			wantErr   string
			wantCode  int
			wantRetry int
			check     func(t *testing.T, r record.Response)
		}{name: enc + " body", url: s.URL + "/" + enc, wantCode: 200, check: func(t *testing.T, r record.Response) {
			wantBody(t, r, compressed, "utf-8", SourceHeader)
			if r.Size != int64(len(compressed)) {
				t.Errorf("size %d, want the decoded %d", r.Size, len(compressed))
			}
		}})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := runCfetch(t, tt.url+"\n", append(append([]string{}, fast...), tt.args...)...)
			r := res.one(t)
			if r.Error != tt.wantErr || r.Status != tt.wantCode || r.Retries != tt.wantRetry {
				t.Fatalf("error %q (%s) status %d retries %d, want %q %d %d", r.Error, r.ErrorDetail, r.Status, r.Retries, tt.wantErr, tt.wantCode, tt.wantRetry)
			}
			if r.Error != "" && r.ErrorDetail == "" {
				t.Error("error without error_detail")
			}
			if res.code != 0 {
				t.Errorf("exit %d, want 0 (fetch failures are data)\n%s", res.code, res.stderr)
			}
			if string(r.Request) != `{"kind":"request","url":"`+tt.url+`"}` {
				t.Errorf("request %s", r.Request)
			}
			if r.FetchedAt == "" || r.Kind != record.KindResponse {
				t.Errorf("kind %q fetched_at %q", r.Kind, r.FetchedAt)
			}
			if tt.check != nil {
				tt.check(t, r)
			}
		})
	}
}

func wantBody(t *testing.T, r record.Response, text, enc, source string) {
	t.Helper()
	if !strings.Contains(r.Body, text) || r.Encoding != enc || r.EncodingSource != source {
		t.Errorf("body %q encoding %q (%s), want it to contain %q in %q (%s); warnings %v", record.Snippet([]byte(r.Body), 200), r.Encoding, r.EncodingSource, text, enc, source, r.Warnings)
	}
}

func wantWarning(t *testing.T, r record.Response, w string) {
	t.Helper()
	for _, got := range r.Warnings {
		if got == w {
			return
		}
	}
	t.Errorf("warnings %q lack %q", r.Warnings, w)
}

func equalRedirects(a, b []record.Redirect) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// refusedURL is a loopback URL where nothing listens.
func refusedURL(t interface{ Fatal(...any) }) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/"
}

// TestRequestFields: method, body, headers and the User-Agent precedence.
func TestRequestFields(t *testing.T) {
	t.Parallel()
	s := newFaultServer()
	defer s.Close()
	type echo struct {
		Method  string            `json:"method"`
		Headers map[string]string `json:"headers"`
		Body    string            `json:"body"`
		Host    string            `json:"host"`
	}
	tests := []struct {
		name string
		in   string
		args []string
		want func(e echo) bool
	}{
		{"defaults", `{"url":"` + s.URL + `/echo"}`, nil, func(e echo) bool {
			return e.Method == "GET" && e.Headers["user-agent"] == DefaultUserAgent() &&
				e.Headers["accept-encoding"] == AcceptEncoding && e.Headers["accept"] == DefaultAccept
		}},
		{"--user-agent", `{"url":"` + s.URL + `/echo"}`, []string{"-A", "bot/2"}, func(e echo) bool { return e.Headers["user-agent"] == "bot/2" }},
		{"useragent field beats the flag", `{"url":"` + s.URL + `/echo","useragent":"field/1"}`, []string{"-A", "bot/2"}, func(e echo) bool {
			return e.Headers["user-agent"] == "field/1"
		}},
		{"request header beats useragent", `{"url":"` + s.URL + `/echo","useragent":"field/1","headers":{"user-agent":"hdr/1"}}`, nil, func(e echo) bool {
			return e.Headers["user-agent"] == "hdr/1"
		}},
		{"-H defaults, request wins", `{"url":"` + s.URL + `/echo","headers":{"X-B":"req"}}`, []string{"-H", "X-A: one, two", "-H", "x-b: flag"}, func(e echo) bool {
			return e.Headers["x-a"] == "one, two" && e.Headers["x-b"] == "req"
		}},
		{"POST with body", `{"url":"` + s.URL + `/echo","method":"post","body":"a=1&b=2","headers":{"Content-Type":"application/x-www-form-urlencoded"}}`, nil, func(e echo) bool {
			return e.Method == "POST" && e.Body == "a=1&b=2" && e.Headers["content-type"] == "application/x-www-form-urlencoded"
		}},
		{"Host header", `{"url":"` + s.URL + `/echo","headers":{"Host":"example.test"}}`, nil, func(e echo) bool { return e.Host == "example.test" }},
		{"303 after POST is a GET without body", `{"url":"` + s.URL + `/redirect-to/303?to=/echo","method":"POST","body":"x","headers":{"Content-Type":"text/plain"}}`, nil, func(e echo) bool {
			return e.Method == "GET" && e.Body == "" && e.Headers["content-type"] == ""
		}},
		{"307 keeps method and body", `{"url":"` + s.URL + `/redirect-to/307?to=/echo","method":"PUT","body":"x"}`, nil, func(e echo) bool {
			return e.Method == "PUT" && e.Body == "x"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCfetch(t, tt.in+"\n", append(append([]string{}, fast...), tt.args...)...).one(t)
			var e echo
			if err := json.Unmarshal([]byte(r.Body), &e); err != nil {
				t.Fatalf("status %d error %s body %q", r.Status, r.ErrorDetail, r.Body)
			}
			if !tt.want(e) {
				t.Errorf("server saw %+v", e)
			}
		})
	}
}

// TestHTTP2OverTLS: https with HTTP/2, certificate checked unless --insecure.
func TestHTTP2OverTLS(t *testing.T) {
	t.Parallel()
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Add("Set-Cookie", "a=1; Path=/")
		w.Header().Add("Set-Cookie", "b=2, c; Path=/")
		w.Header().Add("X-Multi", "1")
		w.Header().Add("X-Multi", "2")
		w.Write([]byte(r.Proto))
	}))
	s.EnableHTTP2 = true
	s.Config.ErrorLog = log.New(io.Discard, "", 0) // the first client refuses the certificate
	s.StartTLS()
	defer s.Close()
	r := runCfetch(t, s.URL+"/\n", fast...).one(t)
	if r.Error != ErrTLS {
		t.Errorf("self-signed certificate: error %q (%s), want tls", r.Error, r.ErrorDetail)
	}
	r = runCfetch(t, s.URL+"/\n", append([]string{"--insecure"}, fast...)...).one(t)
	if r.Body != "HTTP/2.0" {
		t.Errorf("body %q error %s", r.Body, r.ErrorDetail)
	}
	if r.Headers["set-cookie"] != "a=1; Path=/\nb=2, c; Path=/" || r.Headers["x-multi"] != "1, 2" {
		t.Errorf("headers %q", r.Headers)
	}
}

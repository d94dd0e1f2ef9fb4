package cfetch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
)

// faultServer is a loopback web server that misbehaves on purpose, one way
// per path. It is shared by the Go tests and the command-case scripts.
type faultServer struct {
	*httptest.Server
	quit chan struct{}

	mu    sync.Mutex
	calls map[string]int // per-path request counts, for "fails once" paths

	// gate, when set, holds /gate requests until it is closed; entered gets
	// a value when one arrives.
	gate    chan struct{}
	entered chan struct{}

	active, maxActive atomic.Int64

	// robots answers /robots.txt per host name (without the port); hosts
	// not in it get a 404. Set with setRobots before the server is used.
	robots map[string]http.HandlerFunc
	// hostActive and hostMax count requests in flight per Host header.
	hostActive, hostMax map[string]int
}

// setRobots makes host's /robots.txt answer with h.
func (s *faultServer) setRobots(host string, h http.HandlerFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.robots[host] = h
}

// robotsText is a robots.txt handler with body.
func robotsText(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, body)
	}
}

// hits returns how many requests reached key (a path, or "host path").
func (s *faultServer) hits(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[key]
}

// maxPerHost returns the most requests in flight at once for host.
func (s *faultServer) maxPerHost(host string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hostMax[host]
}

// Texts the charset pages carry, as they must come out in UTF-8.
const (
	japaneseText = "日本語のテキストです。これはシフトJISで書かれたページです。漢字とひらがなとカタカナを含みます。"
	frenchText   = "Café crème, déjà vu, naïve façade — «élève» à l'hôtel."
	koreanText   = "한국어 텍스트입니다. 이 페이지는 EUC-KR로 작성되었습니다."
	compressed   = "<html><body><p>compressed body: é ü 日本</p></body></html>"
)

func newFaultServer() *faultServer {
	s := &faultServer{quit: make(chan struct{}), calls: map[string]int{}, gate: make(chan struct{}), entered: make(chan struct{}, 1024),
		robots: map[string]http.HandlerFunc{}, hostActive: map[string]int{}, hostMax: map[string]int{}}
	s.Server = httptest.NewUnstartedServer(s)
	s.Config.ErrorLog = log.New(io.Discard, "", 0) // TLS spoken to it on purpose
	s.Start()
	return s
}

// Close stops the server, releasing handlers that wait forever.
func (s *faultServer) Close() {
	close(s.quit)
	s.Server.Close()
}

func (s *faultServer) count(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[key]++
	return s.calls[key]
}

func (s *faultServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := s.active.Add(1)
	defer s.active.Add(-1)
	for {
		m := s.maxActive.Load()
		if n <= m || s.maxActive.CompareAndSwap(m, n) {
			break
		}
	}
	path := r.URL.Path
	host, _, _ := strings.Cut(r.Host, ":")
	s.mu.Lock()
	s.calls[host+" "+path]++
	s.hostActive[host]++
	s.hostMax[host] = max(s.hostMax[host], s.hostActive[host])
	robots := s.robots[host]
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.hostActive[host]--
		s.mu.Unlock()
	}()
	if path == "/robots.txt" && robots != nil {
		robots(w, r)
		return
	}
	first, rest, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	switch first {
	case "ok", "":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<html><head><title>ok</title></head><body><h1>Hello, wörld</h1></body></html>")
	case "echo":
		body, _ := io.ReadAll(r.Body)
		hdr := map[string]string{}
		for k := range r.Header {
			hdr[strings.ToLower(k)] = r.Header.Get(k)
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"method": r.Method, "headers": hdr, "body": string(body), "host": r.Host})
	case "status":
		code, _ := strconv.Atoi(rest)
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(code)
		fmt.Fprintf(w, "status %d\n", code)
	case "reset":
		s.hijack(w, func(c net.Conn) {
			c.(*net.TCPConn).SetLinger(0)
		})
	case "hang":
		select {
		case <-r.Context().Done():
		case <-s.quit:
		}
	case "gate":
		s.entered <- struct{}{}
		select {
		case <-s.gate:
		case <-s.quit:
		}
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "opened")
	case "short":
		s.hijack(w, func(c net.Conn) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n")
			c.Write(bytes.Repeat([]byte("x"), 100))
		})
	case "garbage":
		s.hijack(w, func(c net.Conn) {
			io.WriteString(c, "HELLO THIS IS NOT HTTP\r\n\r\n")
		})
	case "badgzip":
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "gzip")
		io.WriteString(w, "this is not gzip data at all")
	case "gzip", "br", "zstd", "deflate", "rawdeflate":
		enc := first
		if enc == "rawdeflate" {
			enc = "deflate"
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Encoding", enc)
		w.Write(compress(first, []byte(compressed)))
	case "switch":
		// A 101 no request asked for, then bytes of another protocol,
		// the connection held open as a WebSocket server holds it.
		s.hijack(w, func(c net.Conn) {
			io.WriteString(c, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n\x81\x05hello")
			<-s.quit
		})
	case "cutclose", "cutlength":
		// /cutclose/<coding>: half of a compressed body, then the
		// connection closed, no Content-Length; /cutlength/<coding>: the
		// same half, all of it as its Content-Length says.
		enc := strings.TrimPrefix(rest, "raw")
		half := compress(rest, []byte(strings.Repeat(frenchText, 200)))
		half = half[:len(half)/2]
		framing := "Connection: close\r\n"
		if first == "cutlength" {
			framing = fmt.Sprintf("Content-Length: %d\r\n", len(half))
		}
		s.hijack(w, func(c net.Conn) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Encoding: "+enc+"\r\n"+framing+"\r\n")
			c.Write(half)
		})
	case "badcharset":
		w.Header().Set("Content-Type", "text/html; charset=x-nonexistent")
		io.WriteString(w, "<html><body><p>"+frenchText+"</p></body></html>")
	case "loop":
		http.Redirect(w, r, "/loop2", http.StatusFound)
	case "loop2":
		http.Redirect(w, r, "/loop", http.StatusFound)
	case "redirect":
		n, _ := strconv.Atoi(rest)
		if n <= 0 {
			http.Redirect(w, r, "/ok", http.StatusMovedPermanently)
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/redirect/%d", n-1), http.StatusFound)
	case "redirect-to":
		// /redirect-to/<status>?to=<location>
		code, _ := strconv.Atoi(rest)
		w.Header().Set("Location", r.URL.Query().Get("to"))
		w.WriteHeader(code)
	case "flaky":
		if s.count(path) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, "try again")
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "recovered")
	case "ratelimit":
		if s.count(path) == 1 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "welcome back")
	case "ratelimit-long":
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(http.StatusTooManyRequests)
	case "always503":
		w.WriteHeader(http.StatusServiceUnavailable)
	case "big":
		// /big/<bytes>[?cl=1]
		size, _ := strconv.ParseInt(rest, 10, 64)
		w.Header().Set("Content-Type", "application/octet-stream")
		if r.URL.Query().Get("cl") != "" {
			w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
		}
		chunk := bytes.Repeat([]byte("a"), 32<<10)
		for size > 0 {
			n := min(size, int64(len(chunk)))
			if _, err := w.Write(chunk[:n]); err != nil {
				return
			}
			size -= n
		}
	case "bomb":
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(gzipBomb())
	case "binary":
		w.Header().Set("Content-Type", "image/png")
		w.Write(binaryBody())
	case "nocontenttype":
		w.Header()["Content-Type"] = nil
		io.WriteString(w, "<!DOCTYPE html><html><body>sniffed</body></html>")
	case "octetstream":
		// /octetstream/html, /octetstream/binary: a file without an
		// extension, as python3 -m http.server (and S3) types it.
		w.Header().Set("Content-Type", map[string]string{"html": "application/octet-stream", "binary": "binary/octet-stream"}[rest])
		if rest == "binary" {
			w.Write(binaryBody())
			return
		}
		io.WriteString(w, "<!DOCTYPE html><html><body>sniffed</body></html>")
	case "meta":
		w.Header().Set("Content-Type", "text/html")
		w.Write(metaPage(rest))
	case "sniff":
		w.Header().Set("Content-Type", "text/html")
		if rest == "thai" {
			w.Write(encode(charmap.Windows874, "<html><head><title>ร้านค้า</title></head><body><p>"+thaiShop+"</p></body></html>"))
			return
		}
		w.Write(encode(japanese.ShiftJIS, "<html><body><p>"+strings.Repeat(japaneseText, 4)+"</p></body></html>"))
	case "bom":
		// A UTF-16LE body with its BOM, mislabelled as ISO-8859-1.
		w.Header().Set("Content-Type", "text/plain; charset=iso-8859-1")
		w.Write(append([]byte{0xff, 0xfe}, utf16le("bom wins: "+frenchText)...))
	case "slowloris":
		// Headers at once, then one byte of body every 50ms, forever.
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusOK)
		rc := http.NewResponseController(w)
		for {
			if _, err := w.Write([]byte("x")); err != nil {
				return
			}
			rc.Flush()
			select {
			case <-time.After(50 * time.Millisecond):
			case <-r.Context().Done():
				return
			case <-s.quit:
				return
			}
		}
	case "slowheaders":
		// The status line, then one byte of header every 50ms, forever.
		s.hijack(w, func(c net.Conn) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nX-Slow: ")
			for {
				if _, err := c.Write([]byte("a")); err != nil {
					return
				}
				select {
				case <-time.After(50 * time.Millisecond):
				case <-s.quit:
					return
				}
			}
		})
	case "resetmid":
		// Part of the body, then a TCP reset.
		s.hijack(w, func(c net.Conn) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000000\r\n\r\n")
			c.Write(bytes.Repeat([]byte("x"), 20000))
			c.(*net.TCPConn).SetLinger(0)
		})
	case "badlength":
		// /badlength/<how>: a Content-Length no message may carry.
		cl := map[string]string{
			"word":     "Content-Length: ten\r\n",
			"negative": "Content-Length: -5\r\n",
			"conflict": "Content-Length: 2\r\nContent-Length: 3\r\n",
			"repeated": "Content-Length: 2, 2\r\n",
		}[rest]
		s.hijack(w, func(c net.Conn) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"+cl+"\r\nok")
		})
	case "rawstatus":
		// /rawstatus/<3 digits>: a status line net/http's server would
		// not send.
		s.hijack(w, func(c net.Conn) {
			io.WriteString(c, "HTTP/1.1 "+rest+" X\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok")
		})
	case "badchunk":
		s.hijack(w, func(c net.Conn) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nzz\r\nnot a chunk\r\n")
		})
	case "retry-after-past":
		if s.count(path) == 1 {
			w.Header().Set("Retry-After", "Mon, 01 Jan 2001 00:00:00 GMT")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "back")
	case "retry-after-year":
		w.Header().Set("Retry-After", "31536000")
		w.WriteHeader(http.StatusTooManyRequests)
	case "setcookie":
		http.SetCookie(w, &http.Cookie{Name: "session", Value: rest, Path: "/"})
		io.WriteString(w, "set")
	case "auth":
		if u, p, ok := r.BasicAuth(); !ok || u != "user" || p != "secret" {
			w.Header().Set("WWW-Authenticate", `Basic realm="x"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		io.WriteString(w, "welcome")
	case "proto":
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, r.Proto)
	case "refresh":
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<html><head><meta http-equiv="refresh" content="0; url=/ok"></head><body>moved</body></html>`)
	case "etag":
		// Revalidated with ETag; counts what the server really sent.
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Cache-Control", "max-age=0")
		w.Header().Set("Content-Type", "text/plain")
		if r.Header.Get("If-None-Match") == `"v1"` {
			s.count("etag 304")
			w.WriteHeader(http.StatusNotModified)
			return
		}
		s.count("etag 200")
		io.WriteString(w, "tagged body")
	case "static":
		// A static file server's page: Last-Modified years ago, no
		// Cache-Control (http.ServeContent answers If-Modified-Since).
		if r.Header.Get("If-Modified-Since") != "" {
			s.count("static conditional")
		}
		w.Header().Set("Content-Type", "text/plain")
		http.ServeContent(w, r, "", time.Date(2019, 3, 14, 9, 26, 53, 0, time.UTC), strings.NewReader("static body"))
	case "maxage":
		// Fresh for an hour by the server's word.
		s.count("maxage")
		w.Header().Set("Cache-Control", "max-age=3600")
		w.Header().Set("ETag", `"m1"`)
		w.Header().Set("Content-Type", "text/plain")
		if r.Header.Get("If-None-Match") == `"m1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		io.WriteString(w, "fresh body")
	case "counter":
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "call %d", s.count(path))
	default:
		http.NotFound(w, r)
	}
}

// hijack takes over the connection, lets f misbehave on it and closes it.
func (s *faultServer) hijack(w http.ResponseWriter, f func(net.Conn)) {
	c, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	f(c)
	c.Close()
}

func metaPage(which string) []byte {
	switch which {
	case "sjis":
		return encode(japanese.ShiftJIS, `<html><head><meta charset="Shift_JIS"><title>t</title></head><body><p>`+japaneseText+`</p></body></html>`)
	case "1252":
		return encode(charmap.Windows1252, `<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1252"></head><body><p>`+frenchText+`</p></body></html>`)
	case "euckr":
		return encode(korean.EUCKR, `<html><head><meta charset=euc-kr></head><body><p>`+koreanText+`</p></body></html>`)
	case "tis620":
		return encode(charmap.Windows874, `<html><head><meta charset="tis-620"><title>ร้านค้า</title></head><body><p>`+thaiShop+`</p></body></html>`)
	}
	return nil
}

func encode(e encoding.Encoding, s string) []byte {
	b, err := e.NewEncoder().Bytes([]byte(s))
	if err != nil {
		panic(err)
	}
	return b
}

func utf16le(s string) []byte {
	var b []byte
	for _, r := range s {
		if r > 0xffff {
			panic("BMP only")
		}
		b = append(b, byte(r), byte(r>>8))
	}
	return b
}

func binaryBody() []byte {
	b := []byte("\x89PNG\r\n\x1a\n")
	for i := range 256 {
		b = append(b, byte(i))
	}
	return b
}

func compress(kind string, data []byte) []byte {
	var buf bytes.Buffer
	var w io.WriteCloser
	switch kind {
	case "gzip":
		w = gzip.NewWriter(&buf)
	case "br":
		w = brotli.NewWriter(&buf)
	case "zstd":
		w, _ = zstd.NewWriter(&buf)
	case "deflate":
		w = zlib.NewWriter(&buf)
	case "rawdeflate":
		w, _ = flate.NewWriter(&buf, flate.DefaultCompression)
	default:
		panic(kind)
	}
	w.Write(data)
	w.Close()
	return buf.Bytes()
}

// bombSize is what the gzip bomb inflates to.
const bombSize = 64 << 20

var gzipBomb = sync.OnceValue(func() []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zero := make([]byte, 1<<20)
	for range bombSize >> 20 {
		zw.Write(zero)
	}
	zw.Close()
	return buf.Bytes()
})

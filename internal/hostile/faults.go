package hostile

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The handlers of Cases, one behaviour each.

// trickle is the pace of the slow cases: one byte per tick.
const trickle = 100 * time.Millisecond

func plainPage(_ *Server, w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<html><head><title>%s</title></head><body>a plain page</body></html>", strings.TrimPrefix(r.URL.Path, "/"))
}

func slowBody(s *Server, w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain")
	w.Header().Set("Content-Length", "100000")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	for range 100000 {
		if _, err := w.Write([]byte("x")); err != nil {
			return
		}
		rc.Flush()
		if !s.wait(r, trickle) {
			return
		}
	}
}

func slowHeaders(s *Server, w http.ResponseWriter, r *http.Request) {
	s.hijack(w, func(c net.Conn, _ *bufio.ReadWriter) bool {
		if _, err := io.WriteString(c, "HTTP/1.1 200 OK\r\nX-Slow: "); err != nil {
			return false
		}
		for s.wait(r, trickle) {
			if _, err := c.Write([]byte("a")); err != nil {
				return false
			}
		}
		return false
	})
}

func resetBeforeHeaders(s *Server, w http.ResponseWriter, _ *http.Request) {
	s.hijack(w, func(net.Conn, *bufio.ReadWriter) bool { return true })
}

// partialBody writes head, then 20 kB of the 1000000 bytes it announces.
func partialBody(head string, reset bool) func(*Server, http.ResponseWriter, *http.Request) {
	return func(s *Server, w http.ResponseWriter, _ *http.Request) {
		s.hijack(w, func(c net.Conn, _ *bufio.ReadWriter) bool {
			io.WriteString(c, head)
			c.Write(bytes.Repeat([]byte("x"), 20000))
			// Let the client read what came before the end.
			time.Sleep(50 * time.Millisecond)
			return reset
		})
	}
}

var (
	resetMidBody      = partialBody("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000000\r\n\r\n", true)
	closedMidBody     = partialBody("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000000\r\n\r\n", false)
	http10ClosedEarly = func(s *Server, w http.ResponseWriter, _ *http.Request) {
		s.hijack(w, func(c net.Conn, _ *bufio.ReadWriter) bool {
			io.WriteString(c, "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 10000\r\n\r\n"+strings.Repeat("y", 100))
			return false
		})
	}
)

func garbage(s *Server, w http.ResponseWriter, _ *http.Request) {
	s.hijack(w, func(c net.Conn, _ *bufio.ReadWriter) bool {
		io.WriteString(c, "HELLO THIS IS NOT HTTP\r\n\r\n")
		return false
	})
}

// writeUntil writes chunk over and over until n bytes (n < 0: without
// end) are written, the client hangs up or the server closes.
func writeUntil(s *Server, w io.Writer, chunk []byte, n int64) {
	for n != 0 && !s.closed() {
		b := chunk
		if n > 0 && int64(len(b)) > n {
			b = b[:n]
		}
		if _, err := w.Write(b); err != nil {
			return
		}
		if n > 0 {
			n -= int64(len(b))
		}
	}
}

var filler = bytes.Repeat([]byte("0123456789abcdef"), 2048) // 32 KiB

func bigNoLength(s *Server, w http.ResponseWriter, _ *http.Request) {
	s.hijack(w, func(c net.Conn, _ *bufio.ReadWriter) bool {
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n")
		writeUntil(s, c, filler, 16<<20)
		return false
	})
}

func bigAnnounced(s *Server, w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.Itoa(100<<20))
	writeUntil(s, w, filler, 100<<20)
}

func endlessChunked(s *Server, w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(http.StatusOK)
	writeUntil(s, w, filler, -1)
}

func headerFlood(s *Server, w http.ResponseWriter, _ *http.Request) {
	s.hijack(w, func(c net.Conn, _ *bufio.ReadWriter) bool {
		bw := bufio.NewWriterSize(c, 64<<10)
		bw.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n")
		for i := range 60000 {
			fmt.Fprintf(bw, "X-Flood-%05d: flood\r\n", i)
		}
		bw.WriteString("Content-Length: 2\r\n\r\nok")
		bw.Flush()
		return false
	})
}

func headerHuge(s *Server, w http.ResponseWriter, _ *http.Request) {
	s.hijack(w, func(c net.Conn, _ *bufio.ReadWriter) bool {
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Huge: ")
		writeUntil(s, c, bytes.Repeat([]byte("h"), 64<<10), 2<<20)
		io.WriteString(c, "\r\nContent-Length: 2\r\n\r\nok")
		return false
	})
}

// badLength answers with the Content-Length header lines cl.
func badLength(cl string) func(*Server, http.ResponseWriter, *http.Request) {
	return func(s *Server, w http.ResponseWriter, _ *http.Request) {
		s.hijack(w, func(c net.Conn, _ *bufio.ReadWriter) bool {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"+cl+"\r\nok")
			return false
		})
	}
}

// redirectTo answers 302 with Location: loc, as it is.
func redirectTo(loc string) func(*Server, http.ResponseWriter, *http.Request) {
	return func(_ *Server, w http.ResponseWriter, _ *http.Request) {
		w.Header()["Location"] = []string{loc}
		w.WriteHeader(http.StatusFound)
	}
}

// redirectToTarget answers 302 to the case's target on this server.
func redirectToTarget(s *Server, w http.ResponseWriter, r *http.Request) {
	c := s.caseAt(r.URL.Path)
	if c == nil {
		http.NotFound(w, r)
		return
	}
	redirectTo(s.Target(*c))(s, w, r)
}

func redirectLoop(s *Server, w http.ResponseWriter, r *http.Request) {
	if strings.HasSuffix(r.URL.Path, "/b") {
		redirectTo("/redirect-loop")(s, w, r)
		return
	}
	redirectTo("/redirect-loop/b")(s, w, r)
}

func redirectChain(s *Server, w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/redirect-chain/"))
	redirectTo("/redirect-chain/"+strconv.Itoa(n+1))(s, w, r)
}

func metaRefreshLoop(_ *Server, w http.ResponseWriter, r *http.Request) {
	to := "/meta-refresh-loop/b"
	if strings.HasSuffix(r.URL.Path, "/b") {
		to = "/meta-refresh-loop"
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, `<html><head><meta http-equiv="refresh" content="0; url=%s"><title>refresh</title></head><body>moved</body></html>`, to)
}

func publicLinks(s *Server, w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	io.WriteString(w, "<html><head><title>public links</title></head><body>")
	for _, u := range s.links {
		fmt.Fprintf(w, `<a href="%s">%s</a>`, u, u)
	}
	io.WriteString(w, "</body></html>")
}

func unavailable(_ *Server, w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(http.StatusServiceUnavailable)
	io.WriteString(w, "down")
}

func badCharset(_ *Server, w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=x-nonexistent")
	io.WriteString(w, "<html><head><title>bad charset</title></head><body>Café crème</body></html>")
}

func robotsHuge(s *Server, w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/robots.txt" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/plain")
	w.Header().Set("Content-Length", strconv.Itoa(64<<20))
	head := "User-agent: *\nDisallow: /robots-huge\n"
	io.WriteString(w, head)
	writeUntil(s, w, bytes.Repeat([]byte("# padding padding padding padding padding padding padding pad\n"), 512), 64<<20-int64(len(head)))
}

func robotsRedirectLoop(s *Server, w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/robots.txt" {
		redirectTo("/robots/b.txt")(s, w, r)
		return
	}
	redirectTo("/robots.txt")(s, w, r)
}

func robotsStatus(code int) func(*Server, http.ResponseWriter, *http.Request) {
	return func(_ *Server, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(code)
		fmt.Fprintf(w, "status %d\n", code)
	}
}

func silent(s *Server, w http.ResponseWriter, _ *http.Request) {
	s.hijack(w, func(c net.Conn, _ *bufio.ReadWriter) bool {
		io.Copy(io.Discard, c) // until the client hangs up, or Close
		return false
	})
}

func informationalFlood(s *Server, w http.ResponseWriter, _ *http.Request) {
	s.hijack(w, func(c net.Conn, _ *bufio.ReadWriter) bool {
		bw := bufio.NewWriterSize(c, 64<<10)
		for range 100000 {
			if s.closed() {
				return false
			}
			if _, err := bw.WriteString("HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n"); err != nil {
				return false
			}
		}
		bw.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok")
		bw.Flush()
		return false
	})
}

func badChunkSize(s *Server, w http.ResponseWriter, _ *http.Request) {
	s.hijack(w, func(c net.Conn, _ *bufio.ReadWriter) bool {
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffffff\r\nhello\r\n0\r\n\r\n")
		return false
	})
}

// retryAfter answers code with Retry-After: after.
func retryAfter(code int, after string) func(*Server, http.ResponseWriter, *http.Request) {
	return func(_ *Server, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", after)
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(code)
		io.WriteString(w, "come back later")
	}
}

// stackedLayers is how many deflate codings encodingStack lists.
const stackedLayers = 9000

// encodingStack lists deflate stackedLayers times in Content-Encoding,
// and sends as many nested zlib headers, each opening a stored DEFLATE
// block the next sits in (7 bytes a layer, all within the outermost
// block's 65535 bytes): enough for a decoder per layer to be made; then
// the connection closes.
func encodingStack(_ *Server, w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain")
	w.Header().Set("Content-Encoding", strings.TrimSuffix(strings.Repeat("deflate,", stackedLayers), ","))
	// A zlib header (78 01), then a final stored block of 65535 bytes:
	// 01 ffff 0000.
	layer := []byte{0x78, 0x01, 0x01, 0xff, 0xff, 0x00, 0x00}
	w.Write(bytes.Repeat(layer, stackedLayers))
	w.Write([]byte("inside"))
}

// robotsSlow trickles a robots.txt past the timeout.
func robotsSlow(s *Server, w http.ResponseWriter, r *http.Request) {
	slowBody(s, w, r)
}

func robotsRedirectChain(s *Server, w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/robots/"), ".txt"))
	redirectTo("/robots/"+strconv.Itoa(n+1)+".txt")(s, w, r)
}

func robotsGzipBomb(s *Server, w http.ResponseWriter, r *http.Request) {
	bomb("gzip")(s, w, r)
}

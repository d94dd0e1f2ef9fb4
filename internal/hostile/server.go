// Package hostile is a web server that misbehaves on purpose, for
// pipeline tests: one path per way a server, or a page, can hurt a
// crawler — a body trickled past the timeout, a connection reset, a
// decompression bomb, a header flood, a broken Content-Length, garbage
// instead of HTTP, redirect loops, redirects into the cloud metadata
// service, a robots.txt that is huge or answers 500 — each listed in
// Cases with what cfetch makes of it.
//
// New starts the server on 127.0.0.1. Every case is served on a host of
// its own (a listener on its own port), so that what one case does to a
// host's politeness (a 429 rests the host, three failures in a row too, a
// robots.txt answers for the whole host) never changes another case's
// outcome; Server.URL serves every path too. Cases that need a public
// page (a redirect from a public site into 127.0.0.1) reach it through
// the server used as an HTTP proxy: the proxy's own address is the
// user's choice and is not checked, the page's host name is public.
//
// A Server is safe for concurrent use. Close ends every handler,
// including the ones that would trickle bytes forever.
package hostile

import (
	"bufio"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"time"
)

// Server is the hostile web server: httptest.Server's shape, with one
// listener per case besides the main one.
type Server struct {
	// URL is the main listener, http://127.0.0.1:PORT, without a trailing
	// slash. It serves every case's path, with a robots.txt that is not
	// there (404), and is the proxy of the public pages.
	URL string

	main  *httptest.Server
	hosts map[string]*httptest.Server // case name → its own host
	cases []Case                      // Cases, as New found them
	links []string                    // the public-links page's links: PageLink of each Link case's target
	quit  chan struct{}
	once  sync.Once

	mu   sync.Mutex
	hits map[string]int // "host path?query" → requests received
}

// New starts a Server on 127.0.0.1. Call Close when done.
func New() *Server {
	s := &Server{hosts: map[string]*httptest.Server{}, quit: make(chan struct{}), hits: map[string]int{}}
	s.cases = Cases
	s.main = s.start(nil)
	s.URL = s.main.URL
	for i := range s.cases {
		c := &s.cases[i]
		if c.Via == Link {
			s.links = append(s.links, PageLink(s.Target(*c)))
			continue
		}
		s.hosts[c.Name] = s.start(c)
	}
	return s
}

func (s *Server) start(c *Case) *httptest.Server {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.serve(c, w, r)
	}))
	// Clients hang up on these handlers on purpose; the server's own
	// complaints about it are noise.
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.Start()
	return srv
}

// Close stops every listener and ends the handlers still running. It
// waits for the requests being served, which end at once.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.quit)
		for _, h := range s.hosts {
			h.CloseClientConnections()
		}
		s.main.CloseClientConnections()
		for _, h := range s.hosts {
			h.Close()
		}
		s.main.Close()
	})
}

// HostURL is the base URL of the host of the case named name
// (http://127.0.0.1:PORT), or "" when there is no such case.
func (s *Server) HostURL(name string) string {
	if h, ok := s.hosts[name]; ok {
		return h.URL
	}
	return ""
}

// Hits returns how many requests reached path (with its query, if any:
// "/ok?from=x") on any of the server's hosts, robots.txt included,
// whether they came directly or through the proxy.
func (s *Server) Hits(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for k, v := range s.hits {
		if _, p, _ := strings.Cut(k, " "); p == path {
			n += v
		}
	}
	return n
}

// HitList returns every "host path?query" the server received, with its
// count, sorted: for a test's log when an outcome is not the one wanted.
func (s *Server) HitList() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for k, v := range s.hits {
		out = append(out, fmt.Sprintf("%s ×%d", k, v))
	}
	sort.Strings(out)
	return out
}

// serve routes one request: own is the case whose host it reached (nil
// on the main listener), which answers its /robots.txt and /robots/….
func (s *Server) serve(own *Case, w http.ResponseWriter, r *http.Request) {
	key := r.URL.Path
	if r.URL.RawQuery != "" {
		key += "?" + r.URL.RawQuery
	}
	s.mu.Lock()
	s.hits[r.Host+" "+key]++
	s.mu.Unlock()
	if r.URL.Path == "/robots.txt" || strings.HasPrefix(r.URL.Path, "/robots/") {
		if own != nil && own.robots != nil {
			own.robots(s, w, r)
			return
		}
		http.NotFound(w, r) // no rules: everything allowed
		return
	}
	if r.URL.Path == "/ok" {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<html><head><title>ok</title></head><body>ok</body></html>")
		return
	}
	if c := s.caseAt(r.URL.Path); c != nil {
		c.serve(s, w, r)
		return
	}
	http.NotFound(w, r)
}

// caseAt returns the case serving path (its Path, or under it), or nil.
func (s *Server) caseAt(path string) *Case {
	for i := range s.cases {
		c := &s.cases[i]
		if c.serve != nil && (path == c.Path || strings.HasPrefix(path, c.Path+"/")) {
			return c
		}
	}
	return nil
}

// wait sleeps for d, or returns false at once when the server closes or
// the request is over.
func (s *Server) wait(r *http.Request, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-s.quit:
	case <-r.Context().Done():
	}
	return false
}

// closed reports whether Close was called.
func (s *Server) closed() bool {
	select {
	case <-s.quit:
		return true
	default:
		return false
	}
}

// hijack takes the connection over from net/http, lets f misbehave on it
// (within a minute: a client that stops reading cannot hold a handler
// forever), then closes it — with a TCP reset when f returns true.
func (s *Server) hijack(w http.ResponseWriter, f func(c net.Conn, rw *bufio.ReadWriter) (reset bool)) {
	c, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	c.SetDeadline(time.Now().Add(time.Minute))
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-s.quit:
			c.Close()
		case <-done:
		}
	}()
	if f(c, rw) {
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetLinger(0)
		}
	}
	c.Close()
}

// PageLink is the URL the public-links page links to for a Link case's
// target u: u with page=1 added to its query, so that a crawl that seeds
// the Link cases still fetches (or refuses) the page's links as new URLs.
func PageLink(u string) string {
	if strings.Contains(u, "?") {
		return u + "&page=1"
	}
	return u + "?page=1"
}

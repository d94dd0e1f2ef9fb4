package hostile

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The limits the expected outcomes assume: run cfetch with Flags.
const (
	MaxSize      = 1 << 20 // --max-size, bytes
	Timeout      = 2 * time.Second
	MaxRedirects = 5
	Retries      = 1
)

// Flags are the cfetch flags Cases' outcomes assume: a small --timeout
// and --max-size, one retry after a short backoff (so a test is fast),
// and a Retry-After of at most 2s waited for.
var Flags = []string{
	"--timeout", Timeout.String(),
	"--max-size", strconv.Itoa(MaxSize),
	"--max-redirects", strconv.Itoa(MaxRedirects),
	"--retries", strconv.Itoa(Retries),
	"--retry-backoff", "20ms",
	"--rest-backoff", "50ms",
	"--retry-after-max", "2s",
}

// Via is how a case is requested.
type Via int

const (
	// Seed: the case's URL on its own host, as a seed request.
	Seed Via = iota
	// Public: the case's path on a public-looking host
	// (http://NAME.example/PATH), through the server as the request's
	// proxy, so that what it leads to is led to from a public page.
	Public
	// Link: a link found on a public page (depth 1, a public referer)
	// to the case's Target.
	Link
)

// PublicPage is the page a Link case's link was found on.
const PublicPage = "http://public-links.example/"

// Outcome is what cfetch answers a case with, run with Flags.
type Outcome struct {
	// Error is the response's "error" code; "" when an answer came.
	Error string
	// Status is the response's "status": 0 when no response came, none
	// whose headers could be read, or a redirect failed (its target
	// never answered).
	Status int
	// Retried: cfetch retries the case (the response's "retries" is
	// Retries); otherwise it answers at once ("retries" 0).
	Retried bool
	// Exit is cfetch's exit status for a run of this case alone.
	Exit int
	// Warning, when set, is part of one of the response's "warnings".
	Warning string
	// Redirects is how many hops the response's "redirects" lists.
	Redirects int
}

// Case is one hostile behaviour and what cfetch makes of it.
type Case struct {
	Name string // short, unique, and the key of its host (Server.HostURL)
	Path string // served at Path and under it (Path/…), on every host
	Does string // what the server does
	Via  Via    // how it is requested
	Want Outcome
	// Defect, when set, says how cfetch is known to get this case wrong:
	// Want is the right answer, and tests skip the case with this reason.
	Defect string

	serve  func(*Server, http.ResponseWriter, *http.Request)
	robots func(*Server, http.ResponseWriter, *http.Request) // its host's /robots.txt and /robots/…
	target string                                            // Link and redirect cases: where to; {main} is Server.URL's host:port
}

// Lookup returns the case named name.
func Lookup(name string) (Case, bool) {
	for _, c := range Cases {
		if c.Name == name {
			return c, true
		}
	}
	return Case{}, false
}

// CaseURL is the URL the case's request asks for.
func (s *Server) CaseURL(c Case) string {
	switch c.Via {
	case Public:
		return "http://" + c.Name + ".example" + c.Path
	case Link:
		return s.Target(c)
	}
	return s.HostURL(c.Name) + c.Path
}

// Target is where a Link or redirect case leads, on this server.
func (s *Server) Target(c Case) string {
	return strings.ReplaceAll(c.target, "{main}", strings.TrimPrefix(s.URL, "http://127.0.0.1"))
}

// Request is the case's request record, one NDJSON line without its
// newline. Its attrs name the case ({"case":NAME}), so a response (or an
// item) says which case it answers.
func (s *Server) Request(c Case) string {
	req := map[string]any{"kind": "request", "url": s.CaseURL(c), "attrs": map[string]string{"case": c.Name}}
	switch c.Via {
	case Public:
		req["proxy"] = s.URL
	case Link:
		req["depth"], req["referer"] = 1, PublicPage
	}
	b, err := json.Marshal(req)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// WantExit is cfetch's exit status for one run over cases: 3 when one of
// them is bad input, else 0.
func WantExit(cases []Case) int {
	code := 0
	for _, c := range cases {
		code = max(code, c.Want.Exit)
	}
	return code
}

// Cases is every hostile behaviour the server has, with cfetch's answer
// to it (checked against docs/cfetch.md, "Error codes").
var Cases = []Case{
	{Name: "control", Path: "/control", Does: "a plain page, to show the server works",
		Want: Outcome{Status: 200}, serve: plainPage},

	// Slow servers: --timeout bounds the whole exchange.
	{Name: "slow-body", Path: "/slow-body", Does: "headers at once, then one byte of a 100 kB body every 100ms",
		Want: Outcome{Error: "timeout", Status: 200, Retried: true}, serve: slowBody},
	{Name: "slow-headers", Path: "/slow-headers", Does: "the status line, then one byte of a header every 100ms, forever",
		Want: Outcome{Error: "timeout", Retried: true}, serve: slowHeaders},

	// Broken connections.
	{Name: "silent", Path: "/silent", Does: "reads the request and never answers",
		Want: Outcome{Error: "timeout", Retried: true}, serve: silent},
	{Name: "reset-before-headers", Path: "/reset-before-headers", Does: "reads the request, then resets the connection (TCP RST)",
		Want: Outcome{Error: "reset", Retried: true}, serve: resetBeforeHeaders},
	{Name: "reset-mid-body", Path: "/reset-mid-body", Does: "Content-Length 1000000, 20 kB of it, then a TCP reset",
		Want: Outcome{Error: "reset", Status: 200, Retried: true}, serve: resetMidBody},
	{Name: "closed-mid-body", Path: "/closed-mid-body", Does: "Content-Length 1000000, 20 kB of it, then the connection closed",
		Want: Outcome{Error: "truncated", Status: 200, Retried: true}, serve: closedMidBody},
	{Name: "http10-closed-early", Path: "/http10-closed-early", Does: "an HTTP/1.0 response with Content-Length 10000, closed after 100 bytes",
		Want: Outcome{Error: "truncated", Status: 200, Retried: true}, serve: http10ClosedEarly},
	{Name: "garbage", Path: "/garbage", Does: "a line of text instead of an HTTP response",
		Want: Outcome{Error: "protocol", Retried: true}, serve: garbage},

	// Bodies past --max-size.
	{Name: "gzip-bomb", Path: "/gzip-bomb", Does: "Content-Encoding gzip: 1 MB on the wire inflating to 1 GiB of zeros",
		Want: Outcome{Error: "too_large", Status: 200}, serve: bomb("gzip")},
	{Name: "deflate-bomb", Path: "/deflate-bomb", Does: "Content-Encoding deflate (zlib): 1 MB on the wire inflating to 1 GiB of zeros",
		Want: Outcome{Error: "too_large", Status: 200}, serve: bomb("deflate")},
	{Name: "big-no-length", Path: "/big-no-length", Does: "a 16 MiB body without Content-Length, ended by closing the connection",
		Want: Outcome{Error: "too_large", Status: 200}, serve: bigNoLength},
	{Name: "big-announced", Path: "/big-announced", Does: "Content-Length: 104857600 (100 MiB), and the bytes, as long as they are read",
		Want: Outcome{Error: "too_large", Status: 200}, serve: bigAnnounced},
	{Name: "endless-chunked", Path: "/endless-chunked", Does: "a chunked body that never ends, as fast as it is read",
		Want: Outcome{Error: "too_large", Status: 200}, serve: endlessChunked},

	// Broken headers.
	{Name: "header-flood", Path: "/header-flood", Does: "60000 headers, 1.3 MB of them",
		Want: Outcome{Error: "protocol", Retried: true}, serve: headerFlood},
	{Name: "header-huge", Path: "/header-huge", Does: "one header of 2 MiB",
		Want: Outcome{Error: "protocol", Retried: true}, serve: headerHuge},
	{Name: "length-word", Path: "/length-word", Does: "Content-Length: ten",
		Want: Outcome{Error: "protocol", Retried: true}, serve: badLength("Content-Length: ten\r\n")},
	{Name: "length-negative", Path: "/length-negative", Does: "Content-Length: -5",
		Want: Outcome{Error: "protocol", Retried: true}, serve: badLength("Content-Length: -5\r\n")},
	{Name: "length-conflict", Path: "/length-conflict", Does: "Content-Length: 2 and Content-Length: 3",
		Want: Outcome{Error: "protocol", Retried: true}, serve: badLength("Content-Length: 2\r\nContent-Length: 3\r\n")},
	{Name: "informational-flood", Path: "/informational-flood", Does: "100000 103 Early Hints responses before the 200",
		Want: Outcome{Error: "protocol", Retried: true}, serve: informationalFlood},
	{Name: "bad-chunk-size", Path: "/bad-chunk-size", Does: "a chunk size of 20 hex digits (past 2^64)",
		Want: Outcome{Error: "protocol", Status: 200, Retried: true}, serve: badChunkSize},
	{Name: "encoding-stack", Path: "/encoding-stack", Does: "Content-Encoding: deflate listed 9000 times, and as many nested zlib headers (63 kB)",
		Want:  Outcome{Error: "decode", Status: 200},
		serve: encodingStack},

	// Redirects: a failed one has no status (the target never answered),
	// its url is the target, its redirects the hops before.
	{Name: "redirect-bad-location", Path: "/redirect-bad-location", Does: "302 to Location: http://[::1 (no closing bracket)",
		Want: Outcome{Error: "invalid_url", Redirects: 1}, serve: redirectTo("http://[::1")},
	{Name: "redirect-loop", Path: "/redirect-loop", Does: "302 to /redirect-loop/b, which redirects back",
		Want: Outcome{Error: "redirect_loop", Redirects: 2}, serve: redirectLoop},
	{Name: "redirect-chain", Path: "/redirect-chain", Does: "302 to /redirect-chain/1, then /2, … without end",
		Want: Outcome{Error: "too_many_redirects", Redirects: MaxRedirects + 1}, serve: redirectChain},
	{Name: "redirect-file", Path: "/redirect-file", Does: "302 to file:///etc/passwd",
		Want: Outcome{Error: "unsupported_scheme", Redirects: 1}, serve: redirectTo("file:///etc/passwd")},
	{Name: "redirect-javascript", Path: "/redirect-javascript", Does: "302 to javascript:alert(1)",
		Want: Outcome{Error: "unsupported_scheme", Redirects: 1}, serve: redirectTo("javascript:alert(1)")},
	{Name: "meta-refresh-loop", Path: "/meta-refresh-loop", Does: "a page refreshing at once to /meta-refresh-loop/b, which refreshes back",
		Want: Outcome{Error: "redirect_loop", Redirects: 2}, serve: metaRefreshLoop},

	// Internal addresses, from a public page.
	{Name: "redirect-to-loopback", Path: "/redirect-to-loopback", Via: Public, target: "http://127.0.0.1{main}/ok?from=redirect",
		Does: "a public page redirecting (302) into 127.0.0.1",
		Want: Outcome{Error: "private_address", Redirects: 1}, serve: redirectToTarget},
	{Name: "redirect-to-metadata", Path: "/redirect-to-metadata", Via: Public, target: "http://169.254.169.254/latest/meta-data/",
		Does: "a public page redirecting (302) to the cloud metadata service",
		Want: Outcome{Error: "private_address", Redirects: 1}, serve: redirectToTarget},
	{Name: "redirect-to-ipv6-loopback", Path: "/redirect-to-ipv6-loopback", Via: Public, target: "http://[::1]{main}/ok?from=redirect",
		Does: "a public page redirecting (302) into [::1]",
		Want: Outcome{Error: "private_address", Redirects: 1}, serve: redirectToTarget},
	{Name: "redirect-to-decimal-loopback", Path: "/redirect-to-decimal-loopback", Via: Public, target: "http://2130706433{main}/ok?from=decimal",
		Does:  "a public page redirecting (302) to http://2130706433/, 127.0.0.1 written as one number (browsers and inet_aton read it so)",
		Want:  Outcome{Error: "private_address", Redirects: 1},
		serve: redirectToTarget},
	{Name: "public-links", Path: "/public-links", Via: Public,
		Does: "a public page linking into 127.0.0.1, 169.254.169.254 and [::1]",
		Want: Outcome{Status: 200}, serve: publicLinks},
	{Name: "link-to-loopback", Via: Link, target: "http://127.0.0.1{main}/ok?from=link",
		Does: "a link from a public page into 127.0.0.1",
		Want: Outcome{Error: "private_address"}},
	{Name: "link-to-metadata", Via: Link, target: "http://169.254.169.254/latest/meta-data/",
		Does: "a link from a public page to the cloud metadata service",
		Want: Outcome{Error: "private_address"}},
	{Name: "link-to-ipv6-loopback", Via: Link, target: "http://[::1]{main}/ok?from=link",
		Does: "a link from a public page into [::1]",
		Want: Outcome{Error: "private_address"}},

	// Statuses that ask for a retry.
	{Name: "too-many-requests", Path: "/too-many-requests", Does: "429 with Retry-After: 1, every time",
		Want: Outcome{Status: 429, Retried: true, Warning: "gave up after 1 retry"}, serve: retryAfter(429, "1")},
	{Name: "retry-after-year", Path: "/retry-after-year", Does: "503 with Retry-After: 31536000 (a year)",
		Want: Outcome{Status: 503, Warning: "not retried: Retry-After"}, serve: retryAfter(503, "31536000")},
	{Name: "retry-after-overflow", Path: "/retry-after-overflow", Does: "429 with Retry-After: 99999999999999999999 (past int64 seconds)",
		Want: Outcome{Status: 429, Warning: "not retried: Retry-After"}, serve: retryAfter(429, "99999999999999999999")},
	{Name: "unavailable-forever", Path: "/unavailable-forever", Does: "503, every time",
		Want: Outcome{Status: 503, Retried: true, Warning: "gave up after 1 retry"}, serve: unavailable},

	// Content.
	{Name: "bad-charset", Path: "/bad-charset", Does: "Content-Type: text/html; charset=x-nonexistent",
		Want: Outcome{Status: 200, Warning: `unknown charset "x-nonexistent"`}, serve: badCharset},

	// robots.txt (RFC 9309 §2.3.1): 4xx allows all, 5xx disallows all for a while.
	{Name: "robots-huge", Path: "/robots-huge", Does: "a 64 MiB robots.txt whose first lines disallow /robots-huge",
		Want: Outcome{Error: "robots"}, serve: plainPage, robots: robotsHuge},
	{Name: "robots-redirect-loop", Path: "/robots-redirect-loop", Does: "robots.txt redirects to /robots/b.txt, which redirects back",
		Want: Outcome{Status: 200}, serve: plainPage, robots: robotsRedirectLoop},
	{Name: "robots-500", Path: "/robots-500", Does: "robots.txt answers 500, every time",
		Want: Outcome{Error: "robots"}, serve: plainPage, robots: robotsStatus(500)},
	{Name: "robots-slow", Path: "/robots-slow", Does: "robots.txt trickled one byte every 100ms, past --timeout",
		Want: Outcome{Error: "robots"}, serve: plainPage, robots: robotsSlow},
	{Name: "robots-redirect-chain", Path: "/robots-redirect-chain", Does: "robots.txt redirects to /robots/1.txt, then /2.txt, … without end",
		Want: Outcome{Status: 200}, serve: plainPage, robots: robotsRedirectChain},
	{Name: "robots-gzip-bomb", Path: "/robots-gzip-bomb", Does: "robots.txt is a gzip bomb of 1 GiB of zeros",
		Want: Outcome{Status: 200}, serve: plainPage, robots: robotsGzipBomb},
	{Name: "robots-403", Path: "/robots-403", Does: "robots.txt answers 403",
		Want: Outcome{Status: 200}, serve: plainPage, robots: robotsStatus(403)},
}

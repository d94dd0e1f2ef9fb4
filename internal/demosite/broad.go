package demosite

import (
	"fmt"
	"html"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Broad is the demo site's broad-crawl shape: many small shops on as many
// host names, all served by one handler on one loopback port, for
// benchmarks of crawls that span hundreds of hosts (scripts/bench/broad.sh).
// Crawlers reach the names through their own resolver overrides (cfetch
// --resolve '*:PORT:127.0.0.1').
//
// Host i (1 ≤ i ≤ Hosts) is named h%03d.<Domain> (h001.shop.test, …) and
// serves
//
//	/robots.txt        "User-agent: *" and "Allow: /" (plus "Crawl-delay:
//	                   1" on delayed hosts); 500 on robots-5xx hosts
//	/                  the host's home: links to its P pages
//	/page/<n>.html     page n (1 ≤ n ≤ P): one item (h1, p.price), links to
//	                   its neighbour pages on the host and to two pages on
//	                   other hosts, by absolute URL (cross-host links)
//
// Each host belongs to one class, a pure function of i (BroadClassOf):
// normal; slow (every answer delayed 200–400 ms, the same for the host);
// delayed (Crawl-delay: 1 in robots.txt); dead (every connection reset
// without an answer); robots-5xx (robots.txt answers 500: a polite crawler
// takes it as disallow-all and fetches nothing more).
//
// The site records every request's arrival time per host (the kernel's
// receive time when served through ArrivalListener, else its clock's), and
// counts
// politeness violations (BroadStats): a request to a delayed host less
// than its Crawl-delay after the previous one, and a request arriving
// while more than PerHost requests of its host are being answered.
// PerfectRequests and IdealTime are the ground truth a crawler is held to.
//
// Safe for concurrent use.
type Broad struct {
	opts BroadOptions
	now  func() time.Time

	mu    sync.Mutex
	hosts []broadHost // by index - 1
	start time.Time   // first request since New or Reset
	total int
	early []BroadEarly // the first early requests, for BroadStats.Early
}

// BroadOptions shapes a Broad site. The zero value of a field is its
// default.
type BroadOptions struct {
	Hosts  int    // host names; default 100
	Pages  int    // pages per host (besides its home); default 20
	Domain string // the hosts' parent domain; default "shop.test"
	// PerHost is the most requests to one host a polite crawler has in
	// flight; more at once count as violations. Default 2.
	PerHost int
	// CrawlDelay is the delayed hosts' Crawl-delay; default 1 s. Whole
	// seconds or not, robots.txt writes it in seconds.
	CrawlDelay time.Duration
}

// Broad site defaults.
const (
	DefaultBroadHosts = 100
	DefaultBroadPages = 20
)

func (o BroadOptions) withDefaults() BroadOptions {
	if o.Hosts <= 0 {
		o.Hosts = DefaultBroadHosts
	}
	if o.Pages <= 0 {
		o.Pages = DefaultBroadPages
	}
	if o.Domain == "" {
		o.Domain = "shop.test"
	}
	if o.PerHost <= 0 {
		o.PerHost = 2
	}
	if o.CrawlDelay <= 0 {
		o.CrawlDelay = time.Second
	}
	return o
}

// BroadClass is what kind of host a Broad host is.
type BroadClass int

// The host classes of a Broad site.
const (
	BroadNormal    BroadClass = iota
	BroadSlow                 // answers delayed 200–400 ms
	BroadDelayed              // Crawl-delay in robots.txt
	BroadDead                 // every connection reset
	BroadRobots5xx            // robots.txt answers 500
)

var broadClassNames = [...]string{"normal", "slow", "delayed", "dead", "robots5xx"}

func (c BroadClass) String() string { return broadClassNames[c] }

// BroadClassOf returns host i's class: delayed when i%33 == 0, else dead
// when i%50 == 13, robots-5xx when i%50 == 29, slow when i%20 == 7, else
// normal. Of 300 hosts: 9 delayed, 6 dead, 6 robots-5xx, 15 slow.
func BroadClassOf(i int) BroadClass {
	switch {
	case i%33 == 0:
		return BroadDelayed
	case i%50 == 13:
		return BroadDead
	case i%50 == 29:
		return BroadRobots5xx
	case i%20 == 7:
		return BroadSlow
	}
	return BroadNormal
}

// BroadLatency is how long slow host i delays each answer: 200 to 400 ms,
// fixed per host; 0 for the other classes.
func BroadLatency(i int) time.Duration {
	if BroadClassOf(i) != BroadSlow {
		return 0
	}
	return time.Duration(200+(i*37)%201) * time.Millisecond
}

// NewBroad returns a Broad site.
func NewBroad(o BroadOptions) *Broad {
	o = o.withDefaults()
	b := &Broad{opts: o, now: time.Now}
	b.hosts = make([]broadHost, o.Hosts)
	return b
}

// Options returns the site's options, defaults filled in.
func (b *Broad) Options() BroadOptions { return b.opts }

// HostName returns host i's name, e.g. "h007.shop.test".
func (b *Broad) HostName(i int) string {
	return fmt.Sprintf("h%03d.%s", i, b.opts.Domain)
}

// hostIndex returns the index of the host a Host header names, or 0.
func (b *Broad) hostIndex(hostport string) int {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	name, ok := strings.CutSuffix(strings.ToLower(host), "."+b.opts.Domain)
	if !ok || len(name) < 2 || name[0] != 'h' {
		return 0
	}
	i, err := strconv.Atoi(name[1:])
	if err != nil || i < 1 || i > b.opts.Hosts || name != fmt.Sprintf("h%03d", i) {
		return 0
	}
	return i
}

// ServeHTTP serves the site; see Broad. GET /__demosite/stats answers
// BroadStats as JSON and POST /__demosite/reset clears the records, on any
// host name.
func (b *Broad) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, controlPrefix) {
		b.serveControl(w, r)
		return
	}
	i := b.hostIndex(r.Host)
	if i == 0 {
		http.Error(w, "no such host here", http.StatusMisdirectedRequest)
		return
	}
	at, ok := arrivalTime(r.Context())
	if !ok {
		at = b.now()
	}
	done := b.arrive(i, r.URL.Path, at)
	defer done()
	class := BroadClassOf(i)
	if class == BroadDead {
		resetConnection(w)
		return
	}
	if d := BroadLatency(i); d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	b.route(w, r, i, class)
}

func (b *Broad) route(w http.ResponseWriter, r *http.Request, i int, class BroadClass) {
	path := r.URL.Path
	switch {
	case path == "/robots.txt":
		if class == BroadRobots5xx {
			http.Error(w, "robots.txt is broken today", http.StatusInternalServerError)
			return
		}
		body := "User-agent: *\nAllow: /\n"
		if class == BroadDelayed {
			body += "Crawl-delay: " + strconv.FormatFloat(b.opts.CrawlDelay.Seconds(), 'f', -1, 64) + "\n"
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte(body))
	case path == "/":
		b.writePage(w, b.renderHome(i))
	default:
		n, ok := b.pageOf(path)
		if !ok {
			http.NotFound(w, r)
			return
		}
		b.writePage(w, b.renderPage(r, i, n))
	}
}

// pageOf parses "/page/<n>.html".
func (b *Broad) pageOf(path string) (int, bool) {
	digits, ok := strings.CutPrefix(path, "/page/")
	if !ok {
		return 0, false
	}
	if digits, ok = strings.CutSuffix(digits, ".html"); !ok {
		return 0, false
	}
	n, ok := parseID(digits)
	return n, ok && n <= b.opts.Pages
}

func (b *Broad) writePage(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.Write([]byte(body))
}

func (b *Broad) renderHome(i int) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>Shop %d</title></head><body>\n<h1>Shop %d</h1>\n<ul>\n", i, i)
	for n := 1; n <= b.opts.Pages; n++ {
		fmt.Fprintf(&sb, "<li><a href=\"page/%d.html\">Item %d</a></li>\n", n, n)
	}
	sb.WriteString("</ul>\n</body></html>\n")
	return sb.String()
}

// crossLinks returns the two pages on other hosts that page n of host i
// links to: (host, page) pairs, a pure function of (i, n, Hosts, Pages).
func (b *Broad) crossLinks(i, n int) [2][2]int {
	var out [2][2]int
	for k := range 2 {
		step := 1 + (i*7+n*13+k*29)%(b.opts.Hosts-1+boolInt(b.opts.Hosts == 1))
		h := (i-1+step)%b.opts.Hosts + 1
		p := (n*31+i*17+k*5)%b.opts.Pages + 1
		out[k] = [2]int{h, p}
	}
	return out
}

func boolInt(v bool) int {
	if v {
		return 1
	}
	return 0
}

func (b *Broad) renderPage(r *http.Request, i, n int) string {
	_, port, _ := net.SplitHostPort(r.Host)
	if port != "" {
		port = ":" + port
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>Item %d of shop %d</title></head><body>\n", n, i)
	fmt.Fprintf(&sb, "<div class=\"item\"><h1>Item %d of shop %d</h1><p class=\"price\">%d.%02d</p></div>\n", n, i, 1+(i*n)%97, (i+n)%100)
	sb.WriteString("<ul class=\"links\">\n")
	if n > 1 {
		fmt.Fprintf(&sb, "<li><a href=\"%d.html\">previous</a></li>\n", n-1)
	}
	if n < b.opts.Pages {
		fmt.Fprintf(&sb, "<li><a href=\"%d.html\">next</a></li>\n", n+1)
	}
	for _, l := range b.crossLinks(i, n) {
		u := "http://" + b.HostName(l[0]) + port + "/page/" + strconv.Itoa(l[1]) + ".html"
		fmt.Fprintf(&sb, "<li><a href=\"%s\">elsewhere</a></li>\n", html.EscapeString(u))
	}
	sb.WriteString("</ul>\n</body></html>\n")
	return sb.String()
}

// Seeds returns the home page URL of every host, for a base like
// "http://127.0.0.1:8080": the same scheme and port, each host's name.
func (b *Broad) Seeds(base string) []string {
	port := ""
	if _, p, err := net.SplitHostPort(strings.TrimPrefix(strings.TrimPrefix(base, "http://"), "https://")); err == nil {
		port = ":" + strings.TrimSuffix(p, "/")
	}
	out := make([]string, 0, b.opts.Hosts)
	for i := 1; i <= b.opts.Hosts; i++ {
		out = append(out, "http://"+b.HostName(i)+port+"/")
	}
	return out
}

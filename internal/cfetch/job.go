package cfetch

import (
	"container/heap"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/crawlutils/crawlutils/internal/hostname"
	"github.com/crawlutils/crawlutils/internal/record"
)

// job is one input record on its way through cfetch: a request, from the
// moment it is read until its response record is written, across its
// redirect hops and retries; or a line written as it is (a record of
// another kind, or the answer to a request that cannot be fetched).
// robots.txt fetches are jobs too, made by the scheduler (robotsFor set).
type job struct {
	pos   string // input position, for messages
	raw   []byte // the request as read
	req   record.Request
	ready []byte // not nil: write this line, fetch nothing
	ack   bool   // ready is the ack of a rejected line, not an input record
	// passed is the kind of a record of another kind, written as it came
	// (counted "passed" by kind, apart from the responses).
	passed string

	// The hop to fetch next.
	url     *url.URL
	key     string // host key of url: "hostname:port"
	method  string
	header  http.Header // owned by the job; cloned before a change
	hostHdr string      // the request's own Host header, until the chain leaves its host
	body    string
	proxy   *url.URL // the request's own "proxy", nil for the default
	// internalOK: this hop may connect to internal addresses (private.go).
	internalOK bool

	seq       uint64    // order of arrival: first in, first out among equals
	notBefore time.Time // a retry waits until then
	started   time.Time // first start; zero while never started

	retries   int // retries spent in this run
	redirects []record.Redirect
	visited   []string // chain keys of the hops so far
	warnings  []string
	warcID    string   // --warc: the WARC-Record-ID of the last exchange's response record
	last      *outcome // the last exchange, kept without its body while the job waits

	robotsFor string // this job fetches robots.txt for that host key
	hops      int    // redirects followed by a robots.txt fetch

	// prevStart and thisStart are the host's last start before this one
	// and this one, so that a cache hit can give the delay back.
	prevStart, thisStart time.Time
	// paced is the host of the running exchange while the scheduler
	// waits for its request to be written (scheduler_wire.go).
	paced *host
	// atArrival: the exchange's host counts its delay from the first byte
	// of the answer, not from the sending (a Crawl-delay; robots.txt
	// fetches), set when the exchange starts.
	atArrival bool
	// documentDone, set by the pipeline for a page to render, tells the
	// scheduler that the page's document has been read: the page goes on
	// in the browser, its exchange with the host is over. freed: it has,
	// for the exchange running (scheduler.documentDone).
	documentDone func()
	freed        bool
}

// priority orders a host's queue: robots.txt first, then the request's
// "priority" (higher first).
func (j *job) priority() int {
	if j.robotsFor != "" {
		return int(^uint(0) >> 1)
	}
	return j.req.Priority
}

// hostKey is the politeness key of a URL: lower-case host name (without
// a trailing dot, hostname.Key) and port, the default port of the scheme
// when none is given.
func hostKey(u *url.URL) string {
	h := hostname.Key(strings.ToLower(u.Hostname()))
	p := u.Port()
	if p == "" {
		p = "80"
		if u.Scheme == "https" {
			p = "443"
		}
	}
	if strings.IndexByte(h, ':') >= 0 {
		return "[" + h + "]:" + p
	}
	return h + ":" + p
}

// setURL points the job at its next hop.
func (j *job) setURL(u *url.URL) {
	j.url, j.key = u, hostKey(u)
}

// jobQueue is a host's queue of jobs ready to start, a heap ordered by
// priority, then arrival.
type jobQueue []*job

func (q jobQueue) Len() int { return len(q) }
func (q jobQueue) Less(a, b int) bool {
	pa, pb := q[a].priority(), q[b].priority()
	if pa != pb {
		return pa > pb
	}
	return q[a].seq < q[b].seq
}
func (q jobQueue) Swap(a, b int) { q[a], q[b] = q[b], q[a] }
func (q *jobQueue) Push(x any)   { *q = append(*q, x.(*job)) }
func (q *jobQueue) Pop() any {
	old := *q
	j := old[len(old)-1]
	old[len(old)-1] = nil
	*q = old[:len(old)-1]
	return j
}

func (q *jobQueue) push(j *job) { heap.Push(q, j) }
func (q *jobQueue) pop() *job   { return heap.Pop(q).(*job) }
func (q jobQueue) peek() *job   { return q[0] }

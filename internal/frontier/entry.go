package frontier

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/crawlutils/crawlutils/internal/dedupe"
	"github.com/crawlutils/crawlutils/internal/fingerprint"
	"github.com/crawlutils/crawlutils/internal/record"
)

// Entry is a request ready to push: its JSON and the fields the queue
// needs, parsed once. Build it with NewEntry or ParseEntry.
type Entry struct {
	// Raw is the request record as stored and handed out: one JSON object,
	// no trailing newline, no "lease" field.
	Raw []byte
	// Host is the request's queue within its crawl: the URL's host name,
	// lowercase, IDNA-encoded.
	Host           string
	CrawlID, AppID string
	Priority       int
	Depth          int
	DontFilter     bool
	// Expires is the crawl's expiry, Unix seconds; 0 for none.
	Expires int64
	// Key is the request's fingerprint for the duplicate filter.
	Key dedupe.Key
	// Round is the round of its crawl the request belongs to (the
	// request's "round" field; 0 or 1 is the first): each round has its
	// own seen set (SeenNamespace), so a crawl run again fetches its pages
	// again, each once per round.
	Round int
	// Fresh lists earlier rounds of the crawl: a request seen in one of
	// them is refused as fresh (ReasonFresh) and not marked seen in its
	// own round (cqueue push --refresh lists the rounds started less than
	// the refresh interval ago).
	Fresh []int
}

// SeenNamespace is the name of the seen set of crawl crawlID's round:
// the crawl ID for the first round (so a crawl made before rounds keeps
// its set), the crawl ID and ":round:N" for round N > 1.
func SeenNamespace(crawlID string, round int) string {
	if round <= 1 {
		return crawlID
	}
	return crawlID + ":round:" + strconv.Itoa(round)
}

// freshNamespaces is e.Fresh as seen-set names, one a line.
func freshNamespaces(e *Entry) string {
	var b strings.Builder
	for _, r := range e.Fresh {
		if r == e.Round || (r <= 1 && e.Round <= 1) {
			continue
		}
		b.WriteString(SeenNamespace(e.CrawlID, r))
		b.WriteByte('\n')
	}
	return b.String()
}

// requestRound reads the "round" field of a request: a positive integer,
// or absent (0).
func requestRound(req *record.Request) (int, error) {
	raw, ok := req.Extra["round"]
	if !ok {
		return 0, nil
	}
	n, err := strconv.Atoi(string(raw))
	if err != nil || n < 0 || n > 1<<30 {
		return 0, fmt.Errorf("round: want a positive integer, got %s", raw)
	}
	return n, nil
}

// KeyMode chooses the fingerprint of a request.
type KeyMode int

const (
	// KeyFast is fingerprint.Key64: XXH3 over method, canonical URL and
	// body. The default: 25x faster than SHA-1, 8 bytes stored.
	KeyFast KeyMode = iota
	// KeyScrapy is Scrapy's request fingerprint (fingerprint.Scrapy), so a
	// crawl's seen set can be exported as a Scrapy requests.seen file.
	KeyScrapy
)

// NewEntry builds the entry for req: the canonical URL
// (fingerprint.Identity: as Scrapy canonicalizes it, its host as cfetch
// fetches it) gives the host and, with the method and body, the
// fingerprint; Raw is req encoded without its lease. It fails on a URL that
// cannot be canonicalized or has no host.
func NewEntry(req record.Request, mode KeyMode) (Entry, error) {
	canon, err := fingerprint.Identity(req.URL)
	if err != nil {
		return Entry{}, fmt.Errorf("url: %v", err)
	}
	host := fingerprint.Host(canon)
	if host == "" {
		return Entry{}, errors.New("url: no host")
	}
	key := dedupe.FastRequestKey(req.Method, canon, req.Body)
	if mode == KeyScrapy {
		if key, err = dedupe.RequestKey(req.Method, req.URL, req.Body, true); err != nil {
			return Entry{}, fmt.Errorf("url: %v", err)
		}
	}
	round, err := requestRound(&req)
	if err != nil {
		return Entry{}, err
	}
	req.Lease = ""
	for k := range req.Extra {
		// encoding/json matches keys case-insensitively: a "Lease" member
		// would come back as the lease.
		if strings.EqualFold(k, "lease") {
			delete(req.Extra, k)
		}
	}
	if req.Kind == "" {
		req.Kind = record.KindRequest
	}
	raw, err := record.Encode(&req)
	if err != nil {
		return Entry{}, err
	}
	return Entry{
		Raw:        bytes.TrimRight(raw, "\n"),
		Host:       host,
		CrawlID:    req.CrawlID,
		AppID:      req.AppID,
		Priority:   req.Priority,
		Depth:      req.Depth,
		DontFilter: req.DontFilter,
		Expires:    req.Expires,
		Key:        key,
		Round:      round,
	}, nil
}

// ParseEntry decodes raw, one request record, and builds its entry.
func ParseEntry(raw []byte, mode KeyMode) (Entry, error) {
	var req record.Request
	if err := record.Decode(raw, &req); err != nil {
		return Entry{}, err
	}
	return NewEntry(req, mode)
}

// queuePriority is the priority an entry is queued at: Scrapy's
// DepthMiddleware subtracts depth*DEPTH_PRIORITY.
func (o Options) queuePriority(e *Entry) int {
	return e.Priority - e.Depth*o.DepthPriority
}

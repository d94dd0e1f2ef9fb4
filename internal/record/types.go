package record

import "encoding/json"

// Record kinds.
const (
	KindRequest  = "request"
	KindResponse = "response"
	KindItem     = "item"
	KindAck      = "ack"

	// ErrInvalidRecord is the error of an ack that answers a leased record
	// a command could not read (invalid JSON, nested too deep, a field of
	// the wrong type).
	ErrInvalidRecord = "invalid_record"
)

// Request is a URL to fetch, with Scrapy Cluster's crawl-request fields.
// Follow-up requests inherit the crawl fields (crawl identity and policy).
type Request struct {
	Kind       string            `json:"kind"`
	URL        string            `json:"url"`
	Method     string            `json:"method,omitempty"`
	Headers    map[string]string `json:"headers,omitempty"`
	Body       string            `json:"body,omitempty"`
	Priority   int               `json:"priority,omitempty"`
	Depth      int               `json:"depth,omitempty"`
	Referer    string            `json:"referer,omitempty"`
	DontFilter bool              `json:"dont_filter,omitempty"`
	Retries    int               `json:"retries,omitempty"`

	CrawlID  string `json:"crawlid,omitempty"`
	AppID    string `json:"appid,omitempty"`
	SpiderID string `json:"spiderid,omitempty"`

	MaxDepth       int             `json:"maxdepth,omitempty"`
	AllowedDomains []string        `json:"allowed_domains,omitempty"`
	AllowRegex     []string        `json:"allow_regex,omitempty"`
	DenyRegex      []string        `json:"deny_regex,omitempty"`
	DenyExtensions []string        `json:"deny_extensions,omitzero"` // nil: not written (Scrapy's default list); []: written, none denied
	Expires        int64           `json:"expires,omitempty"`
	UserAgent      string          `json:"useragent,omitempty"`
	Attrs          json.RawMessage `json:"attrs,omitempty"`

	// Redirects is the chain that led to this request when it is the next
	// hop of a redirect that cfetch handed back to the frontier; cfetch
	// carries it on to the response's redirects.
	Redirects []Redirect `json:"redirects,omitempty"`

	Lease string `json:"lease,omitempty"`

	// Extra holds fields this version does not know; they are written back.
	Extra map[string]json.RawMessage `json:"-"`
}

// Response is the outcome of fetching one request. Exactly one response is
// written per request; a failed fetch has Error set.
type Response struct {
	Kind string `json:"kind"`
	// URL is the final URL, after redirects.
	URL string `json:"url"`
	// Request is the request as it was read, unknown fields included.
	Request        json.RawMessage   `json:"request,omitempty"`
	Status         int               `json:"status,omitempty"`
	Headers        map[string]string `json:"headers,omitempty"`
	Body           string            `json:"body,omitempty"`
	BodyBase64     string            `json:"body_base64,omitempty"`
	BodyPath       string            `json:"body_path,omitempty"`
	Encoding       string            `json:"encoding,omitempty"`
	EncodingSource string            `json:"encoding_source,omitempty"`
	Redirects      []Redirect        `json:"redirects,omitempty"`
	Retries        int               `json:"retries,omitempty"`
	Size           int64             `json:"size,omitempty"`
	LatencyMS      float64           `json:"latency_ms,omitempty"`
	DurationMS     float64           `json:"duration_ms,omitempty"`
	FetchedAt      string            `json:"fetched_at,omitempty"`
	// Unchanged: the server answered cfetch's conditional request with
	// 304 Not Modified: the page is as its HTTP cache holds it, and the
	// record has the cached status, headers and body.
	Unchanged bool `json:"unchanged,omitempty"`
	// Cached: cfetch's HTTP cache answered without asking the server
	// (--cache-policy dummy, --cache-only, or rfc9111 with --cache-fresh
	// and a lifetime the server gave): the page may have changed since.
	Cached bool `json:"cached,omitempty"`
	// WARCRecordID is, with cfetch --warc, the WARC-Record-ID of the
	// response (or revisit) record of the final exchange, so that records
	// written later about this page (cextract --warc-outlinks) can refer
	// to it.
	WARCRecordID string `json:"warc_record_id,omitempty"`
	// Error is a short, stable code (timeout, dns, refused, …); ErrorDetail
	// is the human-readable reason.
	Error       string `json:"error,omitempty"`
	ErrorDetail string `json:"error_detail,omitempty"`
	// Warnings lists problems that did not stop the fetch (bad charset, …).
	Warnings []string `json:"warnings,omitempty"`
	// RedirectRequest is the request for the next hop of a redirect (or
	// meta refresh) that cfetch did not follow itself but handed back, so
	// that the frontier sees the target before it is fetched: cextract
	// passes it on as a follow-up request and acks this one.
	RedirectRequest json.RawMessage `json:"redirect_request,omitempty"`

	Extra map[string]json.RawMessage `json:"-"`
}

// Redirect is one hop of a redirect chain.
type Redirect struct {
	URL    string `json:"url"`
	Status int    `json:"status"`
}

// Item is one extracted object.
type Item struct {
	Kind      string          `json:"kind"`
	Type      string          `json:"type,omitempty"`
	Data      json.RawMessage `json:"data"`
	URL       string          `json:"url,omitempty"`
	CrawlID   string          `json:"crawlid,omitempty"`
	AppID     string          `json:"appid,omitempty"`
	Attrs     json.RawMessage `json:"attrs,omitempty"`
	FetchedAt string          `json:"fetched_at,omitempty"`

	Extra map[string]json.RawMessage `json:"-"`
}

// Ack says the request holding Lease is finished. With Error set, it was
// not handled: a command could not read the record that carried it, and
// the frontier dead-letters the request with Error as the reason.
type Ack struct {
	Kind  string `json:"kind"`
	Lease string `json:"lease"`
	URL   string `json:"url,omitempty"`
	Error string `json:"error,omitempty"`
	// CrawlID, Items and FetchError are what the page counts against its
	// crawl's budget (cqueue push adds them up): its crawl, the items
	// extracted from it, and the fetch's error when it failed.
	CrawlID    string `json:"crawlid,omitempty"`
	Items      int    `json:"items,omitempty"`
	FetchError string `json:"fetch_error,omitempty"`

	Extra map[string]json.RawMessage `json:"-"`
}

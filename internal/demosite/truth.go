package demosite

import (
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Options configure a demo site. Zero fields take their defaults, and so
// do negative Products, PerPage and Latency.
type Options struct {
	// Products is the number of catalogue entries (ids 1…Products),
	// including the discontinued ones that answer 404. Default 3000.
	Products int
	// Seed selects the generated content. Default 1.
	Seed int64
	// PerPage is the number of products per listing page. Default 20.
	PerPage int
	// Latency is added to every response. Default 0.
	Latency time.Duration
	// RetryAfter is what the one-time 503s of the Retry-After class ask
	// for, sent in whole seconds (rounded down) in their Retry-After
	// header. Zero means DefaultRetryAfter (1 s); RetryAfterZero sends
	// "Retry-After: 0" and NoRetryAfter (or any other negative value) no
	// header at all.
	RetryAfter time.Duration
	// PadBytes adds about that many bytes to every HTML page, before its
	// footer, of what real shop pages carry beside their content: a
	// framework's inline state script, a style sheet and blocks of text,
	// with no links, so a crawl of the site stays the same crawl over
	// pages of the web's size (real product pages are 100-300 KB). The
	// bytes are the same on every page. Default 0: none.
	PadBytes int
	// Round is the round of a site that changes between crawls (see
	// SetRound); 0, the default, is the classic site.
	Round int
}

// Defaults for Options.
const (
	DefaultProducts = 3000
	DefaultSeed     = 1
	DefaultPerPage  = 20
)

func (o Options) withDefaults() Options {
	if o.Products <= 0 {
		o.Products = DefaultProducts
	}
	if o.Seed == 0 {
		o.Seed = DefaultSeed
	}
	if o.PerPage <= 0 {
		o.PerPage = DefaultPerPage
	}
	if o.Latency < 0 {
		o.Latency = 0
	}
	switch {
	case o.RetryAfter == 0:
		o.RetryAfter = DefaultRetryAfter
	case o.RetryAfter > 0 && o.RetryAfter < time.Second:
		o.RetryAfter = RetryAfterZero
	case o.RetryAfter > 0:
		o.RetryAfter = o.RetryAfter.Truncate(time.Second)
	case o.RetryAfter != RetryAfterZero:
		o.RetryAfter = NoRetryAfter
	}
	return o
}

// Product is one item of the ground truth: the fields a correct crawl
// extracts from a product page, already normalised as described in the
// package documentation.
type Product struct {
	// URL is the canonical product page path, e.g. "/catalogue/blue-widget_17/".
	// Use AbsURL to make it absolute.
	URL          string `json:"url"`
	Title        string `json:"title"`
	Price        string `json:"price"` // as shown, without "£", e.g. "51.77"
	UPC          string `json:"upc"`
	Availability int    `json:"availability"` // stock count
	Category     string `json:"category"`
	Rating       int    `json:"rating"` // 1–5
	Description  string `json:"description"`
}

// AbsURL returns p.URL resolved against base, e.g.
// AbsURL("http://127.0.0.1:8080") == "http://127.0.0.1:8080/catalogue/…/".
func (p Product) AbsURL(base string) string {
	return strings.TrimRight(base, "/") + p.URL
}

// Site is a generated demo website. It is an http.Handler and safe for
// concurrent use. It counts the requests it serves (Stats, Hits, Requests)
// until Reset.
type Site struct {
	opts    Options
	cats    []*category // sorted by name
	catBy   map[string]*category
	items   []*item // index id-1
	byPath  map[string]*item
	private []*item
	truth   []Product
	perfect int    // PerfectCrawl
	js      jsShop // the JavaScript shop under /js/ (pages_js.go)

	retryAfter string        // Retry-After header value, "" for none
	retryDelay time.Duration // the delay it asks for
	now        func() time.Time

	cache pageCache
	padState

	round atomic.Int64 // see SetRound

	mu sync.Mutex
	counters
}

// New builds the whole site deterministically from opts.Seed.
func New(opts Options) *Site {
	opts = opts.withDefaults()
	s := &Site{
		opts:     opts,
		catBy:    map[string]*category{},
		byPath:   map[string]*item{},
		now:      time.Now,
		counters: newCounters(),
	}
	s.retryAfter, s.retryDelay = retryAfterHeader(opts.RetryAfter)
	s.cats, s.items = buildCatalogue(opts)
	buildRelated(opts.Seed, s.items)
	for _, c := range s.cats {
		s.catBy[c.slug] = c
	}
	for _, it := range s.items {
		s.byPath[it.URL] = it
		if !it.discontinued {
			s.truth = append(s.truth, it.Product)
		}
	}
	s.private = buildPrivate(opts, s.cats)
	s.js = buildJSShop(s.items)
	for _, it := range s.private {
		s.byPath[it.URL] = it
	}
	sort.Slice(s.truth, func(i, j int) bool { return s.truth[i].URL < s.truth[j].URL })
	s.perfect = s.perfectCrawl()
	s.round.Store(int64(max(opts.Round, 0)))
	return s
}

// Options returns the options the site was built with, defaults applied.
func (s *Site) Options() Options { return s.opts }

// Truth returns the ground truth: exactly the products a correct crawl
// must produce, sorted by URL. The slice is a copy.
func (s *Site) Truth() []Product {
	if r := s.Round(); r > 0 {
		return s.roundTruth(r)
	}
	return append([]Product(nil), s.truth...)
}

// Shape counts the site's pages and realities (see the package
// documentation); it depends only on Options.
type Shape struct {
	Products      int // catalogue entries, ids 1…Products
	Truth         int // len(Truth())
	Discontinued  int // product pages answering 404
	Redirected    int // products listed through /p/<id>
	TwoHop        int // of which through /p/<id> → /item/<id>
	OneTime       int // product pages failing once, all kinds
	RetryAfter503 int // of which with a 503 with Retry-After
	Plain503      int // a 503 without Retry-After
	Error500      int // a 500
	Reset         int // a connection reset
	ViaP          int // canonically listed products also linked through /p/<id>
	ViaGo         int // products linked through /go/<id>
	DeadLinks     int // related links to discontinued products
	LegacyCharset int // product pages not in UTF-8
	Categories    int
	ListingPages  int // /category/… pages, all categories
	PrivatePages  int // /private/ listing and product pages
}

// Shape returns counts describing the site.
func (s *Site) Shape() Shape {
	sh := Shape{Products: len(s.items), Truth: len(s.truth), Categories: len(s.cats)}
	for _, it := range s.items {
		for _, l := range it.related {
			switch {
			case l.target.discontinued:
				sh.DeadLinks++
			case strings.HasPrefix(l.path, "/p/"):
				sh.ViaP++
			case strings.HasPrefix(l.path, "/go/"):
				sh.ViaGo++
			}
		}
		if it.discontinued {
			sh.Discontinued++
			continue
		}
		if it.redirect != redirectNone {
			sh.Redirected++
		}
		if it.redirect == redirectTwoHop {
			sh.TwoHop++
		}
		switch it.failure {
		case fail503RetryAfter:
			sh.RetryAfter503++
		case fail503:
			sh.Plain503++
		case fail500:
			sh.Error500++
		case failReset:
			sh.Reset++
		}
		if it.failure != failNone {
			sh.OneTime++
		}
		if it.charset != csUTF8 {
			sh.LegacyCharset++
		}
	}
	for _, c := range s.cats {
		sh.ListingPages += c.pages(s.opts.PerPage)
	}
	sh.PrivatePages = privateProducts + s.privatePages()
	return sh
}

func (s *Site) privatePages() int {
	return (privateProducts + privatePerPage - 1) / privatePerPage
}

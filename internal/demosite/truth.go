package demosite

import (
	"sort"
	"strings"
	"sync"
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
// concurrent use.
type Site struct {
	opts    Options
	cats    []*category // sorted by name
	catBy   map[string]*category
	items   []*item // index id-1
	byPath  map[string]*item
	private []*item
	truth   []Product

	cache pageCache

	mu     sync.Mutex
	failed map[int]bool // flaky products that already answered 503
	hits   map[string]int
}

// New builds the whole site deterministically from opts.Seed.
func New(opts Options) *Site {
	opts = opts.withDefaults()
	s := &Site{
		opts:   opts,
		catBy:  map[string]*category{},
		byPath: map[string]*item{},
		failed: map[int]bool{},
		hits:   map[string]int{},
	}
	s.cats, s.items = buildCatalogue(opts)
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
	for _, it := range s.private {
		s.byPath[it.URL] = it
	}
	sort.Slice(s.truth, func(i, j int) bool { return s.truth[i].URL < s.truth[j].URL })
	return s
}

// Options returns the options the site was built with, defaults applied.
func (s *Site) Options() Options { return s.opts }

// Truth returns the ground truth: exactly the products a correct crawl
// must produce, sorted by URL. The slice is a copy.
func (s *Site) Truth() []Product {
	return append([]Product(nil), s.truth...)
}

// Reset forgets which flaky pages already failed (so each fails once more)
// and clears the hit counters, so a test can run a second crawl against
// the same server.
func (s *Site) Reset() {
	s.mu.Lock()
	s.failed = map[int]bool{}
	s.hits = map[string]int{}
	s.mu.Unlock()
}

// Hits returns a copy of the number of requests received per URL path
// (any method, any status) since New or the last Reset.
func (s *Site) Hits() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.hits))
	for k, v := range s.hits {
		out[k] = v
	}
	return out
}

// TotalHits returns the number of requests received since New or the last
// Reset.
func (s *Site) TotalHits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, v := range s.hits {
		n += v
	}
	return n
}

func (s *Site) hit(path string) {
	s.mu.Lock()
	s.hits[path]++
	s.mu.Unlock()
}

// failOnce reports whether flaky product id should answer 503 now, and
// records that it did.
func (s *Site) failOnce(id int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failed[id] {
		return false
	}
	s.failed[id] = true
	return true
}

// Stats summarises the site's structure.
type Stats struct {
	Products      int // catalogue entries, ids 1…Products
	Truth         int // len(Truth())
	Discontinued  int // product pages answering 404
	Redirected    int // products linked through /p/<id>
	TwoHop        int // of which through /p/<id> → /item/<id>
	Flaky         int // product pages answering 503 once
	LegacyCharset int // product pages not in UTF-8
	Categories    int
	ListingPages  int // /category/… pages, all categories
	PrivatePages  int // /private/ listing and product pages
}

// Stats returns counts describing the site.
func (s *Site) Stats() Stats {
	st := Stats{Products: len(s.items), Truth: len(s.truth), Categories: len(s.cats)}
	for _, it := range s.items {
		if it.discontinued {
			st.Discontinued++
			continue
		}
		if it.redirect != redirectNone {
			st.Redirected++
		}
		if it.redirect == redirectTwoHop {
			st.TwoHop++
		}
		if it.flaky {
			st.Flaky++
		}
		if it.charset != csUTF8 {
			st.LegacyCharset++
		}
	}
	for _, c := range s.cats {
		st.ListingPages += c.pages(s.opts.PerPage)
	}
	st.PrivatePages = privateProducts + s.privatePages()
	return st
}

func (s *Site) privatePages() int {
	return (privateProducts + privatePerPage - 1) / privatePerPage
}

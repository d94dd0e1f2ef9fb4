package demosite

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Stream constants keep the random streams of different concerns
// independent, so that e.g. a product's content depends only on (Seed, id)
// and not on how many products the site has.
const (
	streamCategories = 0x6361_7473 // "cats"
	streamProducts   = 0x7072_6f64 // "prod"
	streamPrivate    = 0x7072_6976 // "priv"
	streamMedia      = 0x6d65_6469 // "medi"
	streamRelated    = 0x7265_6c61 // "rela"
)

// rng is a tiny deterministic generator on top of PCG. It reduces with a
// plain modulo instead of math/rand/v2's Rand methods so that the value
// stream depends only on the PCG algorithm, never on the Go release.
type rng struct{ p *rand.PCG }

func newRNG(seed int64, stream uint64) *rng {
	return &rng{rand.NewPCG(uint64(seed), stream)}
}

func (r *rng) uint64() uint64 { return r.p.Uint64() }

// intn returns a value in [0, n).
func (r *rng) intn(n int) int { return int(r.p.Uint64() % uint64(n)) }

func (r *rng) pick(list []string) string { return list[r.intn(len(list))] }

// charset identifies the encoding a product page is served in.
type charset int

const (
	csUTF8 charset = iota
	csWindows1252
	csISO88591
	csShiftJIS
	csEUCKR
)

// redirectKind says how listing pages link to a product.
type redirectKind int

const (
	redirectNone redirectKind = iota
	redirectOneHop
	redirectTwoHop
)

// category is one product category and its (ordered) products.
type category struct {
	name  string
	slug  string
	path  string // /category/<slug>/
	items []*item
	base  bool // listing pages carry <base href="/catalogue/">
}

// pages is the number of listing pages (at least 1, even when empty).
func (c *category) pages(perPage int) int {
	if len(c.items) == 0 {
		return 1
	}
	return (len(c.items) + perPage - 1) / perPage
}

// pagePath is the path of listing page n (1-based).
func (c *category) pagePath(n int) string {
	if n == 1 {
		return c.path
	}
	return c.path + "page-" + strconv.Itoa(n) + ".html"
}

// item is one catalogue entry: its truth record plus how it is served.
type item struct {
	Product
	id           int
	slug         string
	cat          *category
	charset      charset
	redirect     redirectKind
	failure      failureKind // how the page fails once, if it does
	discontinued bool
	private      bool
	padH1        bool // <h1> has leading/trailing whitespace and newlines
	lastmod      string
	related      []relatedLink // the "You may also like" block
}

// linkPath is the path listing pages use to link to the item.
func (it *item) linkPath() string {
	if it.redirect != redirectNone {
		return "/p/" + strconv.Itoa(it.id)
	}
	return it.URL
}

// Reality selectors. Each is a pure function of the product id; see the
// package documentation for the resulting id sets.
func isDiscontinued(id int) bool { return id%37 == 0 }
func redirectFor(id int) redirectKind {
	switch id % 66 {
	case 4:
		return redirectOneHop
	case 37:
		return redirectTwoHop
	}
	return redirectNone
}
func failureFor(id int) failureKind {
	switch {
	case id%50 == 7:
		return fail503RetryAfter
	case id%100 == 23:
		return fail503
	case id%100 == 41:
		return fail500
	case id%100 == 89:
		return failReset
	}
	return failNone
}
func hasPadH1(id int) bool { return id%9 == 2 }
func charsetFor(id int) charset {
	switch {
	case id%20 == 3:
		return csWindows1252
	case id%50 == 11:
		return csISO88591
	case id%50 == 19:
		return csShiftJIS
	case id%50 == 29:
		return csEUCKR
	}
	return csUTF8
}

// buildCatalogue creates the categories and products of a site.
func buildCatalogue(opts Options) (cats []*category, items []*item) {
	for _, spec := range categorySpecs {
		slug := slugify(spec.name)
		cats = append(cats, &category{
			name: spec.name,
			slug: slug,
			path: "/category/" + slug + "/",
			base: spec.name == baseHrefCategory,
		})
	}
	assign := assignCategories(opts, cats)
	items = make([]*item, opts.Products)
	for i := range items {
		id := i + 1
		it := newItem(opts.Seed, id, cats[assign[i]], false)
		items[i] = it
		it.cat.items = append(it.cat.items, it)
	}
	sort.Slice(cats, func(i, j int) bool { return cats[i].name < cats[j].name })
	return cats, items
}

// assignCategories returns, for each product index, the index of its
// category in categorySpecs.
func assignCategories(opts Options, cats []*category) []int {
	r := newRNG(opts.Seed, streamCategories)
	n := opts.Products
	assign := make([]int, n)
	var weighted []int
	total := 0
	for i, spec := range categorySpecs {
		if spec.fixed == 0 {
			weighted = append(weighted, i)
			total += spec.weight
		}
	}
	for i := range assign {
		x := r.intn(total)
		for _, ci := range weighted {
			x -= categorySpecs[ci].weight
			if x < 0 {
				assign[i] = ci
				break
			}
		}
	}
	// Tiny categories take exactly their fixed count, as long as that
	// leaves most products to the weighted ones.
	taken := make([]bool, n)
	budget := n / 2
	for ci, spec := range categorySpecs {
		for k := 0; k < spec.fixed && budget > 0; k++ {
			i := r.intn(n)
			for taken[i] {
				i = (i + 1) % n
			}
			taken[i] = true
			assign[i] = ci
			budget--
		}
	}
	return assign
}

// newItem generates product id deterministically from (seed, id).
func newItem(seed int64, id int, cat *category, private bool) *item {
	stream := uint64(streamProducts)<<32 | uint64(id)
	if private {
		stream = uint64(streamPrivate)<<32 | uint64(id)
	}
	r := newRNG(seed, stream)
	it := &item{id: id, cat: cat, private: private}
	if !private {
		it.charset = charsetFor(id)
		it.discontinued = isDiscontinued(id)
		if !it.discontinued {
			it.redirect = redirectFor(id)
			it.failure = failureFor(id)
		}
	}
	it.padH1 = hasPadH1(id)
	it.Title = makeTitle(r, id, it.charset)
	pence := 1000 + r.intn(5000)
	it.Price = fmt.Sprintf("%d.%02d", pence/100, pence%100)
	it.UPC = fmt.Sprintf("%016x", r.uint64())
	it.Availability = 1 + r.intn(30)
	it.Rating = 1 + r.intn(5)
	it.Description = makeDescription(r, id, it.charset)
	it.Category = cat.name
	it.slug = slugify(it.Title)
	if private {
		it.URL = "/private/catalogue/" + it.slug + "_" + strconv.Itoa(id) + "/"
	} else {
		it.URL = "/catalogue/" + it.slug + "_" + strconv.Itoa(id) + "/"
	}
	day := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, r.intn(365))
	it.lastmod = day.Format("2006-01-02")
	return it
}

// makeTitle builds a product title whose non-ASCII characters fit cs.
func makeTitle(r *rng, id int, cs charset) string {
	core := r.pick(adjectives) + " " + r.pick(nouns)
	switch id % 7 {
	case 1:
		core = r.pick(ampersandPairs) + " " + r.pick(nouns)
	case 2:
		core = r.pick(possessives) + " " + core
	}
	switch cs {
	case csWindows1252:
		if id%2 == 0 {
			core = r.pick(cp1252Words) + " " + core
		} else {
			core = r.pick(latin1Words) + " " + core
		}
	case csISO88591:
		core = r.pick(latin1Words) + " " + core
	case csShiftJIS:
		core = r.pick(japaneseWords) + r.pick(japaneseNouns) + " " + core
	case csEUCKR:
		core = r.pick(koreanWords) + " " + r.pick(koreanNouns) + " " + core
	default:
		switch {
		case id%10 == 6:
			core = r.pick(latin1Words) + " " + core
		case id%25 == 8:
			core = r.pick(japaneseWords) + r.pick(japaneseNouns) + " " + core
		case id%25 == 18:
			core = r.pick(koreanWords) + " " + r.pick(koreanNouns) + " " + core
		case id%25 == 13:
			core = r.pick(cp1252Words) + " " + core
		}
	}
	return core + r.pick(suffixes)
}

// makeDescription builds a one-line description whose non-ASCII
// characters fit cs.
func makeDescription(r *rng, id int, cs charset) string {
	var parts []string
	noun, material := strings.ToLower(r.pick(nouns)), r.pick(descMaterials)
	parts = append(parts, fmt.Sprintf(r.pick(descOpeners), noun, material))
	// 2–5 distinct middle sentences, in a random order.
	middles := append([]string(nil), descMiddles...)
	for k := range 2 + r.intn(4) {
		j := k + r.intn(len(middles)-k)
		middles[k], middles[j] = middles[j], middles[k]
		parts = append(parts, middles[k])
	}
	switch cs {
	case csWindows1252:
		parts = append(parts, r.pick(descCP1252), r.pick(descLatin1))
	case csISO88591:
		parts = append(parts, r.pick(descLatin1))
	case csShiftJIS:
		parts = append(parts, r.pick(descJapanese))
	case csEUCKR:
		parts = append(parts, r.pick(descKorean))
	default:
		switch {
		case id%10 == 6:
			parts = append(parts, r.pick(descLatin1))
		case id%25 == 8:
			parts = append(parts, r.pick(descJapanese))
		case id%25 == 18:
			parts = append(parts, r.pick(descKorean))
		case id%25 == 13:
			parts = append(parts, r.pick(descCP1252))
		}
	}
	parts = append(parts, r.pick(descClosers))
	return strings.Join(parts, " ")
}

// slugify lower-cases s, folds the accented letters of slugFold to ASCII
// and turns every other run of non-alphanumerics into one "-".
func slugify(s string) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(s) {
		var piece string
		switch {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			piece = string(c)
		default:
			piece = slugFold[c]
		}
		if piece == "" {
			dash = b.Len() > 0
			continue
		}
		if dash {
			b.WriteByte('-')
			dash = false
		}
		b.WriteString(piece)
	}
	out := b.String()
	if len(out) > 60 {
		out = strings.TrimRight(out[:60], "-")
	}
	if out == "" {
		out = "item"
	}
	return out
}

// buildPrivate creates the product-like pages of the /private/ area.
func buildPrivate(opts Options, cats []*category) []*item {
	r := newRNG(opts.Seed, streamPrivate)
	out := make([]*item, privateProducts)
	for i := range out {
		out[i] = newItem(opts.Seed, privateIDBase+i+1, cats[r.intn(len(cats))], true)
	}
	return out
}

const (
	privateIDBase   = 900000 // private product ids are 900001…900040
	privateProducts = 40
	privatePerPage  = 8
)

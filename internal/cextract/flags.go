package cextract

import (
	"errors"
	"fmt"
	"regexp"

	"github.com/crawlutils/crawlutils/internal/cli"
)

// Options are cextract's settings, as the flags set them.
type Options struct {
	Fields       []string // -f NAME=SELECTOR, in item order
	Type         string   // --type: the items' type
	Each         string   // --each: one item per element this selects
	Raw          bool     // --raw: keep white space around values
	Links        bool     // --links: emit the page's links as requests
	Allow        []string // --allow REGEX
	Deny         []string // --deny REGEX
	AllowDomains []string // --allow-domain
	DenyDomains  []string // --deny-domain
	MaxURLLength int      // --max-url-length (URLLENGTH_LIMIT)
	Files        []string // input files; none or "-" is stdin
}

// DefaultMaxURLLength is Scrapy's URLLENGTH_LIMIT.
const DefaultMaxURLLength = 2083

// Validate reports the first problem with o (a selector that does not
// compile, a flag that needs another), naming the flag.
func (o *Options) Validate() error {
	_, err := o.compile()
	return err
}

// extractor is what the options compile to.
type extractor struct {
	typ   string
	items *ItemRule      // nil without -f
	links *LinkExtractor // nil without --links
}

func (o *Options) compile() (*extractor, error) {
	if len(o.Fields) == 0 && !o.Links {
		return nil, errors.New("nothing to extract: give -f NAME=SELECTOR (repeatable), --links, or both")
	}
	if o.Type == "" {
		return nil, errors.New("--type: must not be empty (default \"item\")")
	}
	if o.Each != "" && len(o.Fields) == 0 {
		return nil, errors.New("--each: needs at least one -f NAME=SELECTOR to fill the items")
	}
	x := &extractor{typ: o.Type}
	if len(o.Fields) > 0 {
		x.items = &ItemRule{Raw: o.Raw}
		seen := map[string]bool{}
		for _, spec := range o.Fields {
			f, err := ParseField(spec)
			if err != nil {
				return nil, fmt.Errorf("-f %w", err)
			}
			if seen[f.Name] {
				return nil, fmt.Errorf("-f %s: field given twice", f.Name)
			}
			seen[f.Name] = true
			x.items.Fields = append(x.items.Fields, f)
		}
		if o.Each != "" {
			sel, err := Compile(o.Each)
			if err != nil {
				return nil, fmt.Errorf("--each: %w", err)
			}
			switch {
			case sel.IsRecordField():
				return nil, fmt.Errorf("--each %q: is a field of the record, not elements of the page", o.Each)
			case !sel.SelectsElements():
				return nil, fmt.Errorf("--each %q: selects text, not elements: drop ::text, ::attr() or ::html", o.Each)
			}
			x.items.Each = sel
		}
	}
	if !o.Links {
		for _, lf := range []struct {
			name string
			n    int
		}{{"--allow", len(o.Allow)}, {"--deny", len(o.Deny)}, {"--allow-domain", len(o.AllowDomains)}, {"--deny-domain", len(o.DenyDomains)}} {
			if lf.n > 0 {
				return nil, fmt.Errorf("%s: only applies to links: add --links", lf.name)
			}
		}
		return x, nil
	}
	if o.MaxURLLength < 0 {
		return nil, fmt.Errorf("--max-url-length: want 0 (no limit) or a length, got %d", o.MaxURLLength)
	}
	x.links = &LinkExtractor{MaxURLLength: o.MaxURLLength}
	var err error
	if x.links.Allow, err = compileRegexps("--allow", o.Allow); err != nil {
		return nil, err
	}
	if x.links.Deny, err = compileRegexps("--deny", o.Deny); err != nil {
		return nil, err
	}
	if x.links.AllowDomains, err = normalizeDomains("--allow-domain", o.AllowDomains); err != nil {
		return nil, err
	}
	if x.links.DenyDomains, err = normalizeDomains("--deny-domain", o.DenyDomains); err != nil {
		return nil, err
	}
	return x, nil
}

func compileRegexps(flag string, srcs []string) ([]*regexp.Regexp, error) {
	var res []*regexp.Regexp
	for _, s := range srcs {
		re, err := regexp.Compile(s)
		if err != nil {
			return nil, fmt.Errorf("%s %q: %v (Go RE2 syntax: no look-around or back-references)", flag, s, err)
		}
		res = append(res, re)
	}
	return res, nil
}

func normalizeDomains(flag string, ds []string) ([]string, error) {
	var out []string
	for _, d := range ds {
		n, err := NormalizeDomain(d)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", flag, err)
		}
		out = append(out, n)
	}
	return out, nil
}

var help = cli.Help{
	Usage:   "cextract [flags] [FILE...]",
	Summary: "extract items and links from response records with CSS or XPath selectors",
	Description: `Reads response records (from cfetch) on stdin or from FILEs and writes, for each
HTML page, its items, then its links as request records (--links), then the ack of
its lease. Other records pass through unchanged.

A SELECTOR is XPath when it starts with /, (, ./, ../ or an XPath function such
as normalize-space( or count(; otherwise CSS. Prefix css: or xpath: to force either.
@FIELD is a field of the response record instead: @url (the final URL), @status,
@fetched_at, @request.attrs.NAME.
CSS takes Scrapy's pseudo-elements: sel::text (text nodes directly in sel),
sel ::text (all text below sel), sel::attr(href), and sel::html (outer HTML). A
bare CSS selector gives the element's whole text. A field takes the first value
that is not blank (Scrapy's .get()); NAME[]=SELECTOR takes all of them as a JSON
array (.getall()). Fields without a value are left out of the item.

Responses with an error, a non-2xx status or a binary body give no items or
links, only their ack. Links are followed from <a href> and <area href>,
resolved against <base href>, fragments dropped, http(s) only, once per page.`,
	Examples: `  cfetch < urls.txt | cextract -f title=h1 -f 'price=p.price_color::text' | cexport -o items.csv
  cextract --each 'article.product_pod' -f 'title=h3 a::attr(title)' \
      -f 'price=substring-after(.//p[@class="price_color"], "£")' responses.ndjson
  cextract -f 'tags[]=.tags a::text' -f 'links=count(//a)' < responses.ndjson
  cqueue pop --follow | cfetch | cextract --links --allow-domain example.com \
      --deny '/(login|logout)' -f title=title | cexport -o items.jsonl | cqueue push
  cextract -f title=h1 < responses.ndjson | jq -c 'select(.kind == "item") | .data'`,
}

// newFlags defines cextract's flags on tool, filling o.
func newFlags(tool *cli.Tool, o *Options) *cli.Flags {
	f := tool.NewFlags(help)
	f.StringArrayVarP(&o.Fields, "field", "f", nil, "add field `NAME=SELECTOR` to the items (repeatable, in order); NAME[]=SELECTOR for all values")
	f.StringVar(&o.Type, "type", "item", "the items' `TYPE` (their \"type\" field)")
	f.StringVar(&o.Each, "each", "", "one item per element `SELECTOR` matches, fields relative to it (default: one item per page)")
	f.BoolVar(&o.Raw, "raw", false, "keep the white space around values (trimmed by default)")
	f.BoolVar(&o.Links, "links", false, "emit each page's links as request records, after its items")
	f.StringArrayVar(&o.Allow, "allow", nil, "follow only links whose URL matches `REGEX` (repeatable: any)")
	f.StringArrayVar(&o.Deny, "deny", nil, "do not follow links whose URL matches `REGEX` (repeatable)")
	f.StringSliceVar(&o.AllowDomains, "allow-domain", nil, "follow only links to `DOMAIN` or its subdomains (repeatable)")
	f.StringSliceVar(&o.DenyDomains, "deny-domain", nil, "do not follow links to `DOMAIN` or its subdomains (repeatable)")
	f.IntVar(&o.MaxURLLength, "max-url-length", DefaultMaxURLLength, "drop links longer than `N` bytes, 0: no limit (URLLENGTH_LIMIT)")
	return f
}

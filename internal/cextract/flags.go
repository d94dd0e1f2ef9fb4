package cextract

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/crawlutils/crawlutils/internal/cextract/filestore"
	"github.com/crawlutils/crawlutils/internal/cextract/rules"
	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/linkfind"
	"github.com/crawlutils/crawlutils/internal/policy"
	"github.com/crawlutils/crawlutils/internal/selector"
)

// Options are cextract's settings, as the flags set them.
type Options struct {
	Rules        string   // -r/--rules FILE
	Check        string   // --check FILE: validate a rules file and exit
	Test         string   // --test FILE: run a rules file's tests and exit
	Shell        string   // --shell URL|FILE: the interactive session
	Refetch      bool     // --refetch: --test fetches the tests' URLs again
	FetchArgs    []string // --fetch-arg: cfetch's flags, for --test and --shell
	Explain      string   // --explain [REGEX]: explain the responses whose URL matches (see explainArgs)
	Rejects      string   // --rejects FILE: refused follow-ups with their reason
	Failures     string   // --failures FILE: failed pages and pages whose items were dropped
	FailuresAdd  bool     // --failures-append: add to FILE instead of writing it anew
	WARCOutlinks string   // --warc-outlinks FILE: each page's outlinks as WARC metadata records
	Fields       []string // -f NAME=SELECTOR, in item order
	Type         string   // --type: the items' type
	Each         string   // --each: one item per element this selects
	Raw          bool     // --raw: keep white space around values
	Links        bool     // --links: emit the page's links as requests
	Kinds        []string // --kinds: the kinds of links of --links
	PostForms    bool     // --post-forms: POST forms too (with --kinds forms)
	Unchanged    bool     // --extract-unchanged: items of unchanged responses too
	Allow        []string // --allow REGEX
	Deny         []string // --deny REGEX
	AllowDomains []string // --allow-domain
	DenyDomains  []string // --deny-domain
	MaxURLLength int      // --max-url-length (URLLENGTH_LIMIT)
	FilesDir     string   // --files-dir DIR: where items' files are stored (FILES_STORE)
	// FilesExpires is --files-expires (FILES_EXPIRES).
	FilesExpires time.Duration
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

// linkFlagsWithoutLinks names the first flag given that only applies to
// --links.
func (o *Options) linkFlagsWithoutLinks() error {
	for _, lf := range []struct {
		name string
		n    int
	}{{"--kinds", len(o.Kinds)}, {"--post-forms", b2i(o.PostForms)}, {"--allow", len(o.Allow)}, {"--deny", len(o.Deny)}, {"--allow-domain", len(o.AllowDomains)}, {"--deny-domain", len(o.DenyDomains)}} {
		if lf.n > 0 {
			return fmt.Errorf("%s: only applies to links: add --links", lf.name)
		}
	}
	return nil
}

func (o *Options) compile() (*engine, error) {
	if o.Type == "" {
		return nil, errors.New("--type: must not be empty (default \"item\")")
	}
	if !o.Links {
		// Before "nothing to extract": --kinds alone is a --links missing.
		if err := o.linkFlagsWithoutLinks(); err != nil {
			return nil, err
		}
	}
	if o.Rules == "" && len(o.Fields) == 0 && !o.Links {
		return nil, errors.New("nothing to extract: give a rules file (-r FILE), -f NAME=SELECTOR (repeatable), --links, or several")
	}
	if o.FailuresAdd && o.Failures == "" {
		return nil, errors.New("--failures-append: needs --failures FILE")
	}
	if o.Each != "" && len(o.Fields) == 0 {
		return nil, errors.New("--each: needs at least one -f NAME=SELECTOR to fill the items")
	}
	x := &engine{}
	if o.Rules != "" {
		var err error
		if x, err = loadRules(o.Rules); err != nil {
			return nil, err
		}
		if err := o.checkFiles(x); err != nil {
			return nil, err
		}
	}
	if len(o.Fields) > 0 {
		if err := o.addFlagFields(x); err != nil {
			return nil, err
		}
	}
	if !o.Links {
		return x, nil
	}
	if o.MaxURLLength < 0 {
		return nil, fmt.Errorf("--max-url-length: want 0 (no limit) or a length, got %d", o.MaxURLLength)
	}
	ex := &LinkExtractor{MaxURLLength: o.MaxURLLength, PostForms: o.PostForms}
	for _, name := range o.Kinds {
		k, err := linkfind.ParseKind(name)
		if err != nil {
			return nil, fmt.Errorf("--kinds: %v", err)
		}
		ex.Kinds |= k
	}
	ex.Kinds = ruleKinds(ex.Kinds, false)
	if o.PostForms && ex.Kinds&linkfind.Forms == 0 {
		return nil, errors.New("--post-forms: add forms (or all) to --kinds")
	}
	var err error
	if ex.Allow, err = compileRegexps("--allow", o.Allow); err != nil {
		return nil, err
	}
	if ex.Deny, err = compileRegexps("--deny", o.Deny); err != nil {
		return nil, err
	}
	if ex.AllowDomains, err = normalizeDomains("--allow-domain", o.AllowDomains); err != nil {
		return nil, err
	}
	if ex.DenyDomains, err = normalizeDomains("--deny-domain", o.DenyDomains); err != nil {
		return nil, err
	}
	x.links = append(x.links, flagLinkRule(ex))
	return x, nil
}

// checkFiles requires --files-dir when an item rule has files: (but for
// --explain, which downloads nothing), and a usable one.
func (o *Options) checkFiles(x *engine) error {
	if o.FilesExpires < 0 {
		return fmt.Errorf("--files-expires %s: want 0 (always fetch again) or a duration such as 2160h", o.FilesExpires)
	}
	if o.FilesDir != "" {
		s := filestore.Store{Dir: o.FilesDir}
		if err := s.Check(); err != nil {
			return fmt.Errorf("--files-dir: %v", err)
		}
		return nil
	}
	if o.Explain != "" {
		return nil
	}
	for _, r := range x.items {
		if len(r.files) > 0 {
			return fmt.Errorf("%s: files: %s: give --files-dir DIR, where the files are stored", describeRule("item", r.name, r.file, r.pos), strings.Join(r.files, ", "))
		}
	}
	return nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// addFlagFields adds the -f fields: to the rules file's item rule named by
// --type if there is one, else as an item rule of their own that reads
// every response as HTML.
func (o *Options) addFlagFields(x *engine) error {
	var fields []Field
	seen := map[string]bool{}
	for _, spec := range o.Fields {
		f, err := ParseField(spec)
		if err != nil {
			return fmt.Errorf("-f %w", err)
		}
		if seen[f.Name] {
			return fmt.Errorf("-f %s: field given twice", f.Name)
		}
		seen[f.Name] = true
		fields = append(fields, f)
	}
	var each *selector.Selector
	if o.Each != "" {
		sel, err := selector.Compile(o.Each)
		if err != nil {
			return fmt.Errorf("--each: %w", err)
		}
		switch {
		case sel.IsRecordField():
			return fmt.Errorf("--each %q: is a field of the record, not elements of the page", o.Each)
		case !sel.SelectsElements():
			return fmt.Errorf("--each %q: selects text, not elements: drop ::text, ::attr() or ::html", o.Each)
		}
		each = sel
	}
	for _, r := range x.items {
		if r.name != o.Type {
			continue
		}
		if r.match.format != rules.HTML {
			return fmt.Errorf("-f: item rule %q reads %s; -f fields are for HTML rules", r.name, r.match.format)
		}
		if each != nil {
			return fmt.Errorf("--each: item rule %q has its own each (or none) in the rules file", r.name)
		}
		for _, f := range fields {
			for _, have := range r.fields {
				if have.name == f.Name {
					return fmt.Errorf("-f %s: item rule %q has this field already", f.Name, r.name)
				}
			}
			r.fields = append(r.fields, flagField(f, o.Raw))
		}
		return nil
	}
	x.items = append(x.items, flagItemRule(o.Type, fields, each, o.Raw))
	return nil
}

// loadRules reads and compiles a rules file.
func loadRules(name string) (*engine, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("rules: %v", err)
	}
	return compileRulesFile(name, data)
}

// compileRulesFile parses and compiles the rules file name holding data.
// The error, a rules.Errors, lists every problem in file order: those of
// its structure and those of its selectors, found in one pass.
func compileRulesFile(name string, data []byte) (*engine, error) {
	f, err := rules.Parse(name, data)
	if f == nil {
		return nil, err
	}
	x, cerr := compileRules(f)
	if err == nil {
		return x, cerr
	}
	errs, _ := err.(rules.Errors)
	more, _ := cerr.(rules.Errors)
	return nil, rules.Merge(errs, more)
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

func normalizeDomains(flag string, ds []string) (policy.Domains, error) {
	for _, d := range ds {
		if _, err := policy.NormalizeDomain(d); err != nil {
			return policy.Domains{}, fmt.Errorf("%s: %v", flag, err)
		}
	}
	domains, _ := policy.NewDomains(ds)
	return domains, nil
}

var help = cli.Help{
	Usage:   "cextract [flags] [FILE...]",
	Summary: "extract items and links (and sitemaps, feeds) from response records, with a rules file or selectors",
	Description: `Reads response records (from cfetch) on stdin or from FILEs and writes, for each
response, its items, then its follow-up requests, then the ack of its lease. Other
records pass through unchanged.

What to extract comes from a rules file (-r FILE, YAML or JSON: item rules with CSS,
XPath, regex or jq fields and processors, link rules, sitemap rules; see docs/rules.md),
from -f/--links flags, or both. --check FILE validates a rules file; --explain shows,
for each response read, which rules applied and why fields came out empty; --test
FILE runs the rules file's tests: (scrapy check); --shell URL|FILE tries selectors
on one page, line by line (scrapy shell).

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
resolved against <base href>, fragments dropped, http(s) only, once per page;
--kinds (or kinds: in a link rule) finds every link of a kind instead: navigation
(links, frames, <link rel=next>, meta refresh, Link/Refresh/Content-Location
headers), resources (images and srcset, scripts, stylesheets and CSS url(), media),
forms (GET forms with their default values), scripts (URL-looking strings in
inline scripts and data attributes: guesses), or all.`,
	Examples: `  cqueue pop --follow | cfetch | cextract -r shop.yml --rejects refused.jsonl | cexport -r shop.yml -o items.csv | cqueue push
  cextract --check shop.yml
  cextract -r shop.yml --explain < one-response.ndjson
  cextract -r shop.yml --explain '/catalogue/' responses.ndjson
  cextract --test shop.yml
  cextract --shell https://example.com/   # then type selectors: h1, a::attr(href), :rules shop.yml, :explain, :help
  printf 'h1\n:rules shop.yml\n' | cextract --shell one-response.ndjson
  cfetch < urls.txt | cextract -f title=h1 -f 'price=p.price_color::text' | cexport --fields title,price -o items.csv
  cextract --each 'article.product_pod' -f 'title=h3 a::attr(title)' \
      -f 'price=substring-after(.//p[@class="price_color"], "£")' responses.ndjson
  cextract -f 'tags[]=.tags a::text' -f 'links=count(//a)' < responses.ndjson
  cqueue pop --follow | cfetch | cextract --links --allow-domain example.com \
      --deny '/(login|logout)' -f title=title | cexport -o items.jsonl | cqueue push
  cextract -f title=h1 < responses.ndjson | jq -c 'select(.kind == "item") | .data'
  cextract --links --kinds all < responses.ndjson | jq -r 'select(.link_kind == "resources") | .source + " " + .url'`,
}

// define defines cextract's flags on f, filling o.
func (o *Options) define(f *cli.Flags) {
	f.StringVarP(&o.Rules, "rules", "r", "", "extract with the rules file `FILE` (YAML or JSON, see docs/rules.md)")
	f.StringVar(&o.Check, "check", "", "check the rules file `FILE`, report every error with its line and column, and exit")
	o.defineSession(f)
	f.StringVar(&o.Explain, "explain", "", "instead of records, explain each response whose URL matches `REGEX`: rules applied, fields and why they are empty. Without REGEX (--explain at the end, or before a flag, - or a FILE that exists): every response")
	f.StringVar(&o.Rejects, "rejects", "", "write the follow-ups the crawl policy refused to `FILE`, as request records with a \"reason\"")
	f.StringVar(&o.Failures, "failures", "", "write each page that failed (a fetch error, a status other than 2xx) or whose items were dropped (a required field missing) to `FILE`, with the page that linked it: {\"kind\":\"failure\",\"url\",\"status\" or \"error\",\"reason\",\"referer\",…}")
	f.BoolVar(&o.FailuresAdd, "failures-append", false, "add to the --failures FILE instead of writing it anew (cqueue crawl does when a run resumes a round)")
	f.StringVar(&o.WARCOutlinks, "warc-outlinks", "", "write each page's outlinks (the follow-up requests it gave) as a WARC metadata record to the WARC `FILE` (.warc.gz: one gzip member per record), referring to cfetch --warc's response record; a new file of its series (FILE-00001.warc.gz, …) when FILE exists or passes 1G; see docs/warc.md")
	f.StringArrayVarP(&o.Fields, "field", "f", nil, "add field `NAME=SELECTOR` to the items (repeatable, in order); NAME[]=SELECTOR for all values")
	f.StringVar(&o.Type, "type", "item", "the items' `TYPE` (their \"type\" field)")
	f.StringVar(&o.Each, "each", "", "one item per element `SELECTOR` matches, fields relative to it (default: one item per page)")
	f.BoolVar(&o.Raw, "raw", false, "keep the white space around values (trimmed by default)")
	f.BoolVar(&o.Links, "links", false, "emit each page's links as request records, after its items")
	f.StringSliceVar(&o.Kinds, "kinds", nil, "with --links: the `KINDS` of links to follow (default navigation): navigation, resources, forms, scripts or all (comma-separated or repeated); each request carries link_kind and source, as every follow-up does (see docs/rules.md)")
	f.BoolVar(&o.PostForms, "post-forms", false, "with --kinds forms: POST forms too, as POST requests with the form's default values as the body")
	f.BoolVar(&o.Unchanged, "extract-unchanged", false, "extract the items of responses marked \"unchanged\" (by cfetch's HTTP cache: the server answered 304) too; by default only their links are followed")
	f.StringArrayVar(&o.Allow, "allow", nil, "follow only links whose URL matches `REGEX` (repeatable: any)")
	f.StringArrayVar(&o.Deny, "deny", nil, "do not follow links whose URL matches `REGEX` (repeatable)")
	f.StringSliceVar(&o.AllowDomains, "allow-domain", nil, "follow only links to `DOMAIN` or its subdomains (repeatable)")
	f.StringSliceVar(&o.DenyDomains, "deny-domain", nil, "do not follow links to `DOMAIN` or its subdomains (repeatable)")
	f.IntVar(&o.MaxURLLength, "max-url-length", DefaultMaxURLLength, "drop links longer than `N` bytes, 0: no limit (URLLENGTH_LIMIT)")
	f.StringVar(&o.FilesDir, "files-dir", "", "store the files of the item rules with files: under `DIR`, as full/<SHA-1 of the URL><ext> (Scrapy's FILES_STORE); each item is written once its files are settled, with \"files\": [{url, path, checksum, status}] (see docs/rules.md)")
	f.DurationVar(&o.FilesExpires, "files-expires", filestore.DefaultExpires, "a file stored less than `DURATION` ago is up to date and not fetched again; 0: always fetch again (FILES_EXPIRES, 90 days)")
}

package cextract

import (
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/crawlutils/crawlutils/internal/cextract/process"
	"github.com/crawlutils/crawlutils/internal/cextract/rules"
	"github.com/crawlutils/crawlutils/internal/selector"
)

// engine is a rules file (and the -f/--links flags) compiled: what to do
// with each response. Once built, only its item rules' counts of items
// dropped for a missing field change; one processor uses it at a time.
type engine struct {
	items    []*itemRule
	links    []*linkRule
	sitemaps []*sitemapRule
}

// matcher decides whether a rule applies to a response.
type matcher struct {
	url, notURL []*regexp.Regexp
	format      rules.Format // how the rule reads the response
	anyFormat   bool         // the -f and --links rules read every text response as HTML
	css         bool         // the rule finds resources: it reads text/css responses too
}

func newMatcher(m rules.Match) matcher {
	f := m.Type
	if f == "" {
		f = rules.HTML
	}
	return matcher{url: m.URL, notURL: m.NotURL, format: f}
}

// matches reports whether the rule applies to p, and if not, why.
func (m *matcher) matches(p *page) (bool, string) {
	if len(m.url) > 0 && !anyMatch(m.url, p.url) {
		return false, "the URL matches no match.url"
	}
	for _, re := range m.notURL {
		if re.MatchString(p.url) {
			return false, fmt.Sprintf("the URL matches match.not_url %q", re.String())
		}
	}
	if !m.anyFormat && p.format != m.format && !(m.css && p.isCSS()) {
		if p.format != rules.Text || !m.readsText() {
			return false, fmt.Sprintf("the response is %s, the rule reads %s", p.format, m.format)
		}
		if len(m.url) == 0 {
			return false, fmt.Sprintf("the response is text: a %s rule reads text only at the URLs of its match.url", m.format)
		}
	}
	return true, ""
}

// readsText reports whether the rule reads a plain-text response whose URL
// its match.url matches (a CSV or JSON served as text/plain). HTML rules
// never do: a text file is not a page.
func (m *matcher) readsText() bool {
	return m.format == rules.XML || m.format == rules.JSON || m.format == rules.CSV
}

// itemRule makes items: one per page, per each element or per CSV row.
type itemRule struct {
	name   string
	file   string
	pos    rules.Pos
	match  matcher
	each   contextSource
	csv    *rules.CSVOptions
	fields []*field
	// files are the fields whose URLs are fetched with the item (files:).
	files []string
	// missing counts the items dropped for a missing required field, by
	// field path, in the order first seen.
	missing      map[string]int64
	missingOrder []string
}

// field is a compiled field.
type field struct {
	name     string
	path     string // "price", "seller.name": for messages
	pos      rules.Pos
	key      []byte // the name as a JSON string and a colon
	src      source
	all      bool
	required bool
	raw      bool
	chain    process.Chain
	lazy     bool
	each     contextSource
	fields   []*field // a nested object
	flag     bool     // from -f: errors name the flag
}

// compileError is a rules error at a position, naming the rule and field.
func compileError(file string, pos rules.Pos, format string, a ...any) error {
	return rules.Errorf(file, pos, format, a...)
}

// compileRules compiles a parsed rules file. The error lists every selector
// that does not compile, with its rule, field and position.
func compileRules(f *rules.File) (*engine, error) {
	e := &engine{}
	var errs rules.Errors
	add := func(err error) {
		if re, ok := err.(*rules.Error); ok {
			errs = append(errs, re)
		}
	}
	for _, r := range f.Items {
		ir := &itemRule{name: r.Name, file: f.Name, pos: r.Pos, match: newMatcher(r.Match), csv: r.CSV}
		format := ir.match.format
		what := fmt.Sprintf("item rule %q", r.Name)
		if r.Each != nil {
			if format == rules.CSV {
				add(compileError(f.Name, r.Each.Pos, "%s: each: a CSV rule makes one item per row already", what))
			} else if format == rules.Text {
				add(compileError(f.Name, r.Each.Pos, "%s: each: a text rule makes one item per response", what))
			} else if s, err := compileEach(r.Each, format, r.Namespaces); err != nil {
				add(compileError(f.Name, r.Each.Pos, "%s: each: %v", what, err))
			} else {
				ir.each = s
			}
		}
		ir.fields = compileFields(f.Name, what, "", r.Fields, format, r.Namespaces, add)
		for _, s := range r.Files {
			ir.files = append(ir.files, s.Value)
		}
		e.items = append(e.items, ir)
	}
	for i, r := range f.Links {
		lr, err := compileLinkRule(f.Name, i, r)
		if err != nil {
			if es, ok := err.(rules.Errors); ok {
				errs = append(errs, es...)
			}
			continue
		}
		e.links = append(e.links, lr)
	}
	for _, r := range f.Sitemaps {
		e.sitemaps = append(e.sitemaps, compileSitemapRule(r))
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return e, nil
}

func compileEach(s *rules.Source, format rules.Format, ns map[string]string) (contextSource, error) {
	src, err := compileSource(s, format, ns, true)
	if err != nil {
		return nil, err
	}
	cs, ok := src.(contextSource)
	if !ok {
		return nil, fmt.Errorf("%q does not select elements", s.Src)
	}
	if h, ok := cs.(*htmlSource); ok {
		switch {
		case h.sel.IsRecordField():
			return nil, fmt.Errorf("%q is a field of the record, not elements of the page", s.Src)
		case !h.sel.SelectsElements():
			return nil, fmt.Errorf("%q selects text, not elements: drop ::text, ::attr() or ::html", s.Src)
		}
	}
	return cs, nil
}

func compileFields(file, rule, prefix string, fs []*rules.Field, format rules.Format, ns map[string]string, add func(error)) []*field {
	var out []*field
	for _, rf := range fs {
		f := &field{name: rf.Name, path: prefix + rf.Name, pos: rf.Pos, all: rf.All, required: rf.Required, raw: rf.Raw, chain: rf.Process}
		f.key, _ = json.Marshal(rf.Name)
		f.key = append(f.key, ':')
		f.lazy = f.chain.Lazy()
		what := fmt.Sprintf("%s, field %q", rule, f.path)
		if rf.Source != nil {
			src, err := compileSource(rf.Source, format, ns, false)
			if err != nil {
				add(compileError(file, rf.Source.Pos, "%s: %v", what, err))
			}
			f.src = src
		}
		if rf.Each != nil {
			if s, err := compileEach(rf.Each, format, ns); err != nil {
				add(compileError(file, rf.Each.Pos, "%s: each: %v", what, err))
			} else {
				f.each = s
			}
		}
		if rf.Fields != nil {
			f.fields = compileFields(file, rule, f.path+".", rf.Fields, format, ns, add)
		}
		out = append(out, f)
	}
	return out
}

// flagItemRule is the item rule of the -f flags: v1's behaviour, every text
// response read as HTML.
func flagItemRule(typ string, fs []Field, each *selector.Selector, raw bool) *itemRule {
	r := &itemRule{name: typ, match: matcher{format: rules.HTML, anyFormat: true}}
	if each != nil {
		r.each = &htmlSource{each}
	}
	for _, f := range fs {
		r.fields = append(r.fields, flagField(f, raw))
	}
	return r
}

func flagField(f Field, raw bool) *field {
	key, _ := json.Marshal(f.Name)
	return &field{name: f.Name, path: f.Name, key: append(key, ':'), src: &htmlSource{f.Sel}, all: f.All, raw: raw, lazy: true, flag: true}
}

// describeRule names a rule for messages: its kind, name and where the
// rules file defines it.
func describeRule(kind, name, file string, pos rules.Pos) string {
	switch {
	case name != "" && pos.Line > 0:
		return fmt.Sprintf("%s rule %q (%s:%d)", kind, name, file, pos.Line)
	case name != "":
		return fmt.Sprintf("%s rule %q", kind, name)
	case pos.Line > 0:
		return fmt.Sprintf("%s rule at %s:%d", kind, file, pos.Line)
	}
	return kind + " rule"
}

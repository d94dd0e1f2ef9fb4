package rules

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/crawlutils/crawlutils/internal/cextract/process"
	"github.com/crawlutils/crawlutils/internal/ndjson"
)

// Keys lists the keys each mapping of the schema accepts (the JSON Schema
// in docs/rules.schema.json is checked against it).
var Keys = map[string][]string{
	"file":    {"version", "name", "items", "links", "sitemaps", "tests"},
	"match":   {"url", "not_url", "type"},
	"item":    {"name", "match", "each", "namespaces", "csv", "fields", "files"},
	"csv":     {"delimiter", "quote", "headers"},
	"field":   {"css", "xpath", "jq", "re", "column", "value", "field", "all", "required", "raw", "process", "each", "fields"},
	"link":    {"name", "match", "select", "allow", "deny", "allow_domains", "deny_domains", "restrict_css", "restrict_xpath", "tags", "attrs", "kinds", "post_forms", "requests", "render", "deny_extensions", "skip_nofollow", "canonicalize", "unique", "process", "priority", "priority_step"},
	"sitemap": {"name", "match", "follow", "allow", "deny", "alternate", "lastmod_after", "lastmod_before"},
}

// Parse reads a rules file. name is used in error messages. The error is
// an Errors listing every problem found, each with its line and column.
//
// With errors, the File returned holds what could be read all the same
// (nil when the file is not YAML at all), so that the caller can check it
// further and report every problem in one pass: a rule whose match.type
// is not understood is left out (its selectors cannot be read without
// it), and a value in error is left empty. Such a File is only for
// checking, never for extracting.
func Parse(name string, data []byte) (*File, error) {
	// A file saved with a byte order mark (Windows editors) is the same
	// rules: the mark is no key of its first line.
	root, err := parseYAML(ndjson.TrimBOM(data))
	if err != nil {
		if e, ok := err.(*Error); ok {
			e.File = name
			return nil, Errors{e}
		}
		return nil, Errors{{File: name, Pos: Pos{1, 1}, Msg: err.Error()}}
	}
	d := &decoder{name: name}
	f := d.file(root)
	if len(d.errs) > 0 {
		return f, Merge(d.errs)
	}
	return f, nil
}

type decoder struct {
	name string
	errs Errors
}

func (d *decoder) errorf(pos Pos, format string, a ...any) {
	if len(d.errs) < 50 {
		d.errs = append(d.errs, Errorf(d.name, pos, format, a...))
	}
}

// fields walks a mapping's keys, reporting unknown ones.
func (d *decoder) fields(n *node, schema, what string, fn func(key string, v *node)) bool {
	if n.kind != mapNode {
		d.errorf(n.Pos, "%s: want a mapping, got %s", what, n.describe())
		return false
	}
	known := Keys[schema]
	for i, k := range n.keys {
		if !contains(known, k.text) {
			d.errorf(k.Pos, "unknown field %q in %s%s", k.text, what, suggest(k.text, known))
			continue
		}
		fn(k.text, n.vals[i])
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// suggest proposes the known key closest to an unknown one.
func suggest(s string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if dist := editDistance(s, k); dist < bestD {
			best, bestD = k, dist
		}
	}
	if best != "" {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return " (known: " + strings.Join(known, ", ") + ")"
}

func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 99
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// str reads a string: a scalar other than null, as written in the file
// (name: 01 is "01", a regex 1.50 is "1.50").
func (d *decoder) str(n *node, what string) (String, bool) {
	if n.kind != scalarNode || n.tag == nullTag {
		d.errorf(n.Pos, "%s: want a string, got %s", what, n.describe())
		return String{}, false
	}
	return String{n.Pos, n.src}, true
}

func (d *decoder) boolean(n *node, what string) bool {
	if n.kind != scalarNode || n.tag != boolTag {
		d.errorf(n.Pos, "%s: want true or false, got %s", what, n.describe())
		return false
	}
	return n.text == "true"
}

func (d *decoder) integer(n *node, what string) (int, bool) {
	var v int
	if n.kind != scalarNode || n.tag != intTag {
		d.errorf(n.Pos, "%s: want an integer, got %s", what, n.describe())
		return 0, false
	}
	if _, err := fmt.Sscan(n.text, &v); err != nil {
		d.errorf(n.Pos, "%s: %v", what, err)
		return 0, false
	}
	return v, true
}

// strings reads a string or a list of strings.
func (d *decoder) strings(n *node, what string) []String {
	var out []String
	if n.kind == seqNode {
		for _, it := range n.items {
			if s, ok := d.str(it, what); ok {
				out = append(out, s)
			}
		}
		return out
	}
	if s, ok := d.str(n, what); ok {
		out = append(out, s)
	}
	return out
}

func (d *decoder) regexps(n *node, what string) []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, s := range d.strings(n, what) {
		re, err := process.CompileRegexp(s.Value)
		if err != nil {
			d.errorf(s.Pos, "%s %q: %v", what, s.Value, err)
			continue
		}
		out = append(out, re)
	}
	return out
}

func (d *decoder) file(n *node) *File {
	f := &File{Name: d.name}
	if n.kind != mapNode {
		d.errorf(n.Pos, "a rules file is a mapping with items, links or sitemaps, got %s", n.describe())
		return f
	}
	d.fields(n, "file", "the file", func(key string, v *node) {
		switch key {
		case "version":
			if ver, ok := d.integer(v, "version"); ok && ver != 1 {
				d.errorf(v.Pos, "version: this cextract reads version 1, got %d", ver)
			}
		case "name":
			if s, ok := d.str(v, "name"); ok {
				f.Spider = s.Value
			}
		case "items":
			for i, it := range d.list(v, "items") {
				if r := d.item(it, i); r != nil {
					f.Items = append(f.Items, r)
				}
			}
		case "links":
			for i, it := range d.list(v, "links") {
				if r := d.link(it, i); r != nil {
					f.Links = append(f.Links, r)
				}
			}
		case "sitemaps":
			for i, it := range d.list(v, "sitemaps") {
				if r := d.sitemap(it, i); r != nil {
					f.Sitemaps = append(f.Sitemaps, r)
				}
			}
		case "tests":
			f.Tests = d.tests(v)
		}
	})
	if len(d.errs) == 0 && len(f.Items)+len(f.Links)+len(f.Sitemaps) == 0 {
		d.errorf(n.Pos, "no rules: give items, links or sitemaps")
	}
	seen := map[string]*Item{}
	for _, it := range f.Items {
		if prev := seen[it.Name]; prev != nil {
			d.errorf(it.Pos, "item rule %q is defined twice (first at line %d)", it.Name, prev.Line)
		}
		seen[it.Name] = it
	}
	return f
}

func (d *decoder) list(n *node, what string) []*node {
	if n.kind != seqNode {
		d.errorf(n.Pos, "%s: want a list of rules (each starting with \"- \"), got %s", what, n.describe())
		return nil
	}
	return n.items
}

// match reads a rule's match; ok is false when its type is not understood.
func (d *decoder) match(n *node, m *Match) (ok bool) {
	m.Pos = n.Pos
	ok = true
	d.fields(n, "match", "match", func(key string, v *node) {
		switch key {
		case "url":
			m.URL = d.regexps(v, "match.url")
		case "not_url":
			m.NotURL = d.regexps(v, "match.not_url")
		case "type":
			s, isStr := d.str(v, "match.type")
			if !isStr {
				ok = false
				return
			}
			switch Format(s.Value) {
			case HTML, XML, JSON, CSV, Text:
				m.Type = Format(s.Value)
			default:
				ok = false
				d.errorf(v.Pos, "match.type: want html, xml, json, csv or text, got %q", s.Value)
			}
		}
	})
	return ok
}

func (d *decoder) date(n *node, what string) (String, bool) {
	s, ok := d.str(n, what)
	if !ok {
		return s, false
	}
	if _, ok := process.ParseDate(s.Value); !ok {
		d.errorf(n.Pos, "%s: want a date such as 2024-05-01 or 2024-05-01T10:00:00Z, got %q", what, s.Value)
		return String{}, false
	}
	return s, true
}

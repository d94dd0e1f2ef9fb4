// Package rules reads cextract's rules files: YAML (or JSON, one schema)
// that say which items to extract from which responses, which links to
// follow and which sitemaps to read — Scrapy's spiders, Rules,
// LinkExtractors, ItemLoaders and sitemap/feed spiders, as data
// (docs/rules.md is the reference, docs/rules.schema.json its JSON Schema).
//
// Parse checks everything that can be checked without the selector engines:
// the structure (unknown keys are errors, with a suggestion), types,
// regular expressions and processors. Selectors are kept as written, with
// their position, for cextract to compile; it reports their errors through
// Errorf so that every message reads "file:line:col: …".
package rules

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/crawlutils/crawlutils/internal/cextract/process"
)

// Pos is a position in the rules file, 1-based.
type Pos struct{ Line, Col int }

// Error is one problem in a rules file.
type Error struct {
	File string
	Pos
	Msg string
}

func (e *Error) Error() string {
	if e.File == "" {
		return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// Errors is every problem found in a rules file, in file order.
type Errors []*Error

func (es Errors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// Errorf returns an Error at pos of file.
func Errorf(file string, pos Pos, format string, a ...any) *Error {
	return &Error{File: file, Pos: pos, Msg: fmt.Sprintf(format, a...)}
}

// Format is how a rule reads responses.
type Format string

// Formats.
const (
	HTML Format = "html"
	XML  Format = "xml"
	JSON Format = "json"
	CSV  Format = "csv"
)

// File is a parsed rules file.
type File struct {
	Name     string // the file name, for messages
	Spider   string // the optional "name:" of the file
	Items    []*Item
	Links    []*Link
	Sitemaps []*Sitemap
}

// String is a string of the file with its position.
type String struct {
	Pos
	Value string
}

// Match says which responses a rule applies to.
type Match struct {
	Pos
	URL    []*regexp.Regexp // any of these must match the URL (none: any URL)
	NotURL []*regexp.Regexp // none of these may match
	Type   Format           // how to read the response; "" when not given (HTML)
}

// Lang is the language of a Source.
type Lang uint8

// Source languages.
const (
	Auto   Lang = iota // the rule's format decides (CSS or XPath for HTML, …)
	CSS                // css:
	XPath              // xpath:
	JQ                 // jq:
	Body               // re: alone: the regular expression on the whole body
	Column             // column: a CSV column
	Const              // value: a constant
	Record             // field: a field of the response record ("url", "request.attrs.x")
)

// Source is where a field's values come from, as written.
type Source struct {
	Pos
	Lang  Lang
	Src   string
	Value process.Value // Const
}

// Field is one named value of an item.
type Field struct {
	Pos
	Name     string
	Source   *Source // nil for a nested object without its own selector
	All      bool    // every value, as a list
	Required bool    // no value: the item is not emitted
	Raw      bool    // keep white space around string values
	Process  process.Chain
	Each     *Source  // nested: one object per element
	Fields   []*Field // nested object's fields
}

// CSVOptions read a CSV feed (Scrapy's CSVFeedSpider).
type CSVOptions struct {
	Delimiter byte
	Quote     byte
	Headers   []string // nil: the first row
}

// Item is an item rule: the callback of a Scrapy spider as data.
type Item struct {
	Pos
	Name       string
	Match      Match
	Each       *Source
	Namespaces map[string]string
	CSV        *CSVOptions
	Fields     []*Field
}

// Link is a link rule: Scrapy's Rule(LinkExtractor(…)).
type Link struct {
	Pos
	Name           string
	Match          Match
	Select         *Field // URLs from a selector (JSON pagination, …) instead of tags
	Allow, Deny    []*regexp.Regexp
	AllowDomains   []String
	DenyDomains    []String
	RestrictCSS    []String
	RestrictXPath  []String
	Tags, Attrs    []string
	DenyExtensions []string // nil: Scrapy's IGNORED_EXTENSIONS
	SkipNofollow   bool
	Canonicalize   bool
	Unique         bool
	Process        process.Chain
	Priority       *int // absolute priority of the requests
	PriorityStep   int  // added to the parent's priority otherwise
}

// Sitemap is a sitemap rule: Scrapy's SitemapSpider.
type Sitemap struct {
	Pos
	Name          string
	Match         Match
	Follow        []*regexp.Regexp // nested sitemaps to request (none: all)
	Allow, Deny   []*regexp.Regexp // page URLs to request (none: all)
	Alternate     bool
	LastmodAfter  String
	LastmodBefore String
}

// DefaultPriorityStep is Scrapy Cluster's priority decay per level.
const DefaultPriorityStep = -10

// IgnoredExtensions is Scrapy's linkextractors.IGNORED_EXTENSIONS, the
// default deny_extensions of a link rule.
var IgnoredExtensions = []string{
	// archives
	"7z", "7zip", "bz2", "rar", "tar", "tar.gz", "xz", "zip",
	// images
	"mng", "pct", "bmp", "gif", "jpg", "jpeg", "png", "pst", "psp", "tif", "tiff", "ai", "drw", "dxf", "eps", "ps", "svg", "cdr", "ico", "webp",
	// audio
	"mp3", "wma", "ogg", "wav", "ra", "aac", "mid", "au", "aiff",
	// video
	"3gp", "asf", "asx", "avi", "mov", "mp4", "mpg", "qt", "rm", "swf", "wmv", "m4a", "m4v", "flv", "webm",
	// office suites
	"xls", "xlsx", "ppt", "pptx", "pps", "doc", "docx", "odt", "ods", "odg", "odp",
	// other
	"css", "pdf", "exe", "bin", "rss", "dmg", "iso", "apk",
}

// Keys lists the keys each mapping of the schema accepts (the JSON Schema
// in docs/rules.schema.json is checked against it).
var Keys = map[string][]string{
	"file":    {"version", "name", "items", "links", "sitemaps"},
	"match":   {"url", "not_url", "type"},
	"item":    {"name", "match", "each", "namespaces", "csv", "fields"},
	"csv":     {"delimiter", "quote", "headers"},
	"field":   {"css", "xpath", "jq", "re", "column", "value", "field", "all", "required", "raw", "process", "each", "fields"},
	"link":    {"name", "match", "select", "allow", "deny", "allow_domains", "deny_domains", "restrict_css", "restrict_xpath", "tags", "attrs", "deny_extensions", "skip_nofollow", "canonicalize", "unique", "process", "priority", "priority_step"},
	"sitemap": {"name", "match", "follow", "allow", "deny", "alternate", "lastmod_after", "lastmod_before"},
}

// Parse reads a rules file. name is used in error messages. The error is
// an Errors listing every problem found, each with its line and column.
func Parse(name string, data []byte) (*File, error) {
	root, err := parseYAML(data)
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
		sort.SliceStable(d.errs, func(i, j int) bool {
			a, b := d.errs[i], d.errs[j]
			return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
		})
		return nil, d.errs
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

func (d *decoder) str(n *node, what string) (String, bool) {
	if n.kind != scalarNode || n.tag == nullTag {
		d.errorf(n.Pos, "%s: want a string, got %s", what, n.describe())
		return String{}, false
	}
	return String{n.Pos, n.text}, true
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

var nameRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)

func (d *decoder) match(n *node, m *Match) {
	m.Pos = n.Pos
	d.fields(n, "match", "match", func(key string, v *node) {
		switch key {
		case "url":
			m.URL = d.regexps(v, "match.url")
		case "not_url":
			m.NotURL = d.regexps(v, "match.not_url")
		case "type":
			s, ok := d.str(v, "match.type")
			if !ok {
				return
			}
			switch Format(s.Value) {
			case HTML, XML, JSON, CSV:
				m.Type = Format(s.Value)
			default:
				d.errorf(v.Pos, "match.type: want html, xml, json or csv, got %q", s.Value)
			}
		}
	})
}

func (d *decoder) item(n *node, i int) *Item {
	r := &Item{Pos: n.Pos}
	what := fmt.Sprintf("item rule %d", i+1)
	if j := n.index("name"); n.kind == mapNode && j >= 0 && n.vals[j].kind == scalarNode {
		what = fmt.Sprintf("item rule %q", n.vals[j].text)
	}
	var fieldsNode *node
	errs := len(d.errs)
	ok := d.fields(n, "item", what, func(key string, v *node) {
		switch key {
		case "name":
			if s, ok := d.str(v, "name"); ok {
				if !nameRE.MatchString(s.Value) {
					d.errorf(v.Pos, "name %q: use letters, digits, _, . and - (it is the items' type)", s.Value)
				}
				r.Name = s.Value
			}
		case "match":
			d.match(v, &r.Match)
		case "each":
			r.Each = d.source(v, "each")
		case "namespaces":
			if v.kind != mapNode {
				d.errorf(v.Pos, "namespaces: want a mapping of prefix: URI, got %s", v.describe())
				return
			}
			r.Namespaces = map[string]string{}
			for j, k := range v.keys {
				if s, ok := d.str(v.vals[j], "namespaces."+k.text); ok {
					r.Namespaces[k.text] = s.Value
				}
			}
		case "csv":
			r.CSV = d.csv(v)
		case "fields":
			fieldsNode = v
		}
	})
	if !ok {
		return nil
	}
	if r.Name == "" {
		d.errorf(n.Pos, "%s: needs a name (it becomes the items' type)", what)
	}
	if r.CSV != nil && r.Match.Type != CSV {
		if r.Match.Type != "" {
			d.errorf(n.Pos, "%s: csv options need match.type csv, got %s", what, r.Match.Type)
		}
		r.Match.Type = CSV
	}
	if r.Namespaces != nil && r.Match.Type != XML {
		d.errorf(n.Pos, "%s: namespaces need match.type xml", what)
	}
	switch {
	case fieldsNode != nil:
		r.Fields = d.fieldList(fieldsNode, what)
	case r.Match.Type != CSV && len(d.errs) == errs:
		d.errorf(n.Pos, "%s: needs fields", what)
	}
	return r
}

func (d *decoder) csv(n *node) *CSVOptions {
	o := &CSVOptions{Delimiter: ',', Quote: '"'}
	char := func(v *node, what string) byte {
		s, ok := d.str(v, what)
		if !ok {
			return 0
		}
		if s.Value == `\t` {
			return '\t'
		}
		if len(s.Value) != 1 || s.Value[0] == '\n' || s.Value[0] == '\r' {
			d.errorf(v.Pos, "%s: want one ASCII character, got %q", what, s.Value)
			return 0
		}
		return s.Value[0]
	}
	d.fields(n, "csv", "csv", func(key string, v *node) {
		switch key {
		case "delimiter":
			o.Delimiter = char(v, "csv.delimiter")
		case "quote":
			o.Quote = char(v, "csv.quote")
		case "headers":
			for _, s := range d.strings(v, "csv.headers") {
				o.Headers = append(o.Headers, s.Value)
			}
			if o.Headers == nil {
				o.Headers = []string{}
			}
		}
	})
	if o.Delimiter != 0 && o.Delimiter == o.Quote {
		d.errorf(n.Pos, "csv: the delimiter and the quote must differ")
	}
	return o
}

func (d *decoder) fieldList(n *node, what string) []*Field {
	if n.kind != mapNode {
		d.errorf(n.Pos, "%s: fields: want a mapping of NAME: SELECTOR, got %s", what, n.describe())
		return nil
	}
	if len(n.keys) == 0 {
		d.errorf(n.Pos, "%s: fields: none given", what)
	}
	var out []*Field
	for i, k := range n.keys {
		if strings.TrimSpace(k.text) == "" {
			d.errorf(k.Pos, "%s: a field needs a name", what)
			continue
		}
		if f := d.field(k, n.vals[i], what); f != nil {
			out = append(out, f)
		}
	}
	return out
}

// sourceKeys are the keys of a field that say where its values come from.
var sourceKeys = map[string]Lang{"css": CSS, "xpath": XPath, "jq": JQ, "column": Column, "value": Const, "field": Record}

func (d *decoder) field(k, n *node, rule string) *Field {
	f := &Field{Pos: k.Pos, Name: k.text}
	what := fmt.Sprintf("field %q", f.Name)
	if n.kind == scalarNode {
		f.Source = d.source(n, what)
		return f
	}
	var re *node
	d.fields(n, "field", what, func(key string, v *node) {
		if lang, ok := sourceKeys[key]; ok {
			if f.Source != nil {
				d.errorf(v.Pos, "%s: give one of css, xpath, jq, column, value or field, not several", what)
				return
			}
			if lang == Const {
				if v.kind != scalarNode {
					d.errorf(v.Pos, "%s: value: want a string, number or boolean, got %s", what, v.describe())
					return
				}
				f.Source = &Source{Pos: v.Pos, Lang: Const, Value: scalarValue(v)}
				return
			}
			s, ok := d.str(v, what+": "+key)
			if !ok {
				return
			}
			if strings.TrimSpace(s.Value) == "" {
				d.errorf(v.Pos, "%s: %s: empty", what, key)
				return
			}
			f.Source = &Source{Pos: v.Pos, Lang: lang, Src: s.Value}
			return
		}
		switch key {
		case "re":
			re = v
		case "all":
			f.All = d.boolean(v, what+": all")
		case "required":
			f.Required = d.boolean(v, what+": required")
		case "raw":
			f.Raw = d.boolean(v, what+": raw")
		case "process":
			f.Process = d.processors(v, what)
		case "each":
			f.Each = d.source(v, what+": each")
		case "fields":
			f.Fields = d.fieldList(v, rule+", "+what)
		}
	})
	if re != nil {
		if s, ok := d.str(re, what+": re"); ok {
			rx, err := process.CompileRegexp(s.Value)
			if err != nil {
				d.errorf(re.Pos, "%s: re %q: %v", what, s.Value, err)
			} else {
				f.Process = append(process.Chain{process.RegexProc(rx)}, f.Process...)
				if f.Source == nil {
					f.Source = &Source{Pos: re.Pos, Lang: Body, Src: s.Value}
				}
			}
		}
	}
	switch {
	case f.Each != nil && f.Fields == nil:
		d.errorf(n.Pos, "%s: each needs fields (one object per element)", what)
	case f.Fields != nil && f.Source != nil && f.Source.Lang != Body:
		d.errorf(n.Pos, "%s: a nested object takes each and fields, not a selector", what)
	case f.Fields == nil && f.Source == nil && len(d.errs) == 0:
		d.errorf(n.Pos, "%s: say where its value comes from: css, xpath, jq, re, column, value, field, or fields", what)
	case f.Fields != nil && f.Process != nil:
		d.errorf(n.Pos, "%s: processors apply to values, not to a nested object", what)
	}
	return f
}

// source reads a selector written as a plain string (language by the
// rule's format) or as {css: …}, {xpath: …}, {jq: …}.
func (d *decoder) source(n *node, what string) *Source {
	if n.kind == mapNode && len(n.keys) == 1 {
		if lang, ok := sourceKeys[n.keys[0].text]; ok && lang != Const {
			s, ok := d.str(n.vals[0], what)
			if !ok {
				return nil
			}
			return &Source{Pos: s.Pos, Lang: lang, Src: s.Value}
		}
	}
	s, ok := d.str(n, what)
	if !ok {
		return nil
	}
	if strings.TrimSpace(s.Value) == "" {
		d.errorf(n.Pos, "%s: empty selector", what)
		return nil
	}
	return &Source{Pos: s.Pos, Lang: Auto, Src: s.Value}
}

func scalarValue(n *node) process.Value {
	switch n.tag {
	case intTag, floatTag:
		if isJSONNumber(n.text) {
			return process.Value{Kind: process.Number, Text: n.text}
		}
	case boolTag:
		return process.Value{Kind: process.Bool, Text: n.text}
	case nullTag:
		return process.Value{Kind: process.JSON, Text: "null"}
	}
	return process.Str(n.text)
}

// processors reads a list of processors: "strip", {replace: [a, b]}, ….
func (d *decoder) processors(n *node, what string) process.Chain {
	items := n.items
	if n.kind != seqNode {
		items = []*node{n}
	}
	var ch process.Chain
	for _, it := range items {
		name, arg := "", process.Arg{}
		switch {
		case it.kind == scalarNode && it.tag == strTag:
			name = it.text
		case it.kind == mapNode && len(it.keys) == 1:
			name = it.keys[0].text
			arg = toArg(it.vals[0])
		default:
			d.errorf(it.Pos, "%s: a processor is a name (strip) or one name: argument (join: \", \"), got %s", what, it.describe())
			continue
		}
		p, err := process.New(name, arg)
		if err != nil {
			d.errorf(it.Pos, "%s: %v", what, err)
			continue
		}
		ch = append(ch, p)
	}
	return ch
}

func toArg(n *node) process.Arg {
	switch n.kind {
	case seqNode:
		a := process.Arg{Kind: process.ListArg}
		for _, it := range n.items {
			a.List = append(a.List, toArg(it))
		}
		return a
	case mapNode:
		a := process.Arg{Kind: process.MapArg}
		for i, k := range n.keys {
			a.Keys = append(a.Keys, k.text)
			a.Vals = append(a.Vals, toArg(n.vals[i]))
		}
		return a
	}
	if n.tag == nullTag {
		return process.Arg{}
	}
	return process.Arg{Kind: process.ScalarArg, Scalar: scalarValue(n)}
}

func (d *decoder) link(n *node, i int) *Link {
	r := &Link{Pos: n.Pos, Unique: true, PriorityStep: DefaultPriorityStep}
	what := fmt.Sprintf("link rule %d", i+1)
	if j := n.index("name"); n.kind == mapNode && j >= 0 && n.vals[j].kind == scalarNode {
		what = fmt.Sprintf("link rule %q", n.vals[j].text)
	}
	ok := d.fields(n, "link", what, func(key string, v *node) {
		switch key {
		case "name":
			if s, ok := d.str(v, "name"); ok {
				r.Name = s.Value
			}
		case "match":
			d.match(v, &r.Match)
		case "select":
			f := d.field(&node{Pos: v.Pos, text: "select"}, v, what)
			if f.Fields != nil || f.Each != nil {
				d.errorf(v.Pos, "%s: select gives URLs: a selector, not fields", what)
			}
			r.Select = f
		case "allow":
			r.Allow = d.regexps(v, "allow")
		case "deny":
			r.Deny = d.regexps(v, "deny")
		case "allow_domains":
			r.AllowDomains = d.strings(v, "allow_domains")
		case "deny_domains":
			r.DenyDomains = d.strings(v, "deny_domains")
		case "restrict_css":
			r.RestrictCSS = d.strings(v, "restrict_css")
		case "restrict_xpath":
			r.RestrictXPath = d.strings(v, "restrict_xpath")
		case "tags":
			for _, s := range d.strings(v, "tags") {
				r.Tags = append(r.Tags, strings.ToLower(s.Value))
			}
		case "attrs":
			for _, s := range d.strings(v, "attrs") {
				r.Attrs = append(r.Attrs, strings.ToLower(s.Value))
			}
		case "deny_extensions":
			r.DenyExtensions = []string{}
			for _, s := range d.strings(v, "deny_extensions") {
				r.DenyExtensions = append(r.DenyExtensions, strings.TrimPrefix(strings.ToLower(s.Value), "."))
			}
		case "skip_nofollow":
			r.SkipNofollow = d.boolean(v, "skip_nofollow")
		case "canonicalize":
			r.Canonicalize = d.boolean(v, "canonicalize")
		case "unique":
			r.Unique = d.boolean(v, "unique")
		case "process":
			r.Process = d.processors(v, what)
		case "priority":
			if p, ok := d.integer(v, "priority"); ok {
				r.Priority = &p
			}
		case "priority_step":
			if p, ok := d.integer(v, "priority_step"); ok {
				r.PriorityStep = p
			}
		}
	})
	if !ok {
		return nil
	}
	if r.Select != nil && (len(r.RestrictCSS)+len(r.RestrictXPath)+len(r.Tags)+len(r.Attrs) > 0) {
		d.errorf(n.Pos, "%s: select picks the URLs itself: drop tags, attrs, restrict_css and restrict_xpath", what)
	}
	if r.Select == nil && r.Match.Type != "" && r.Match.Type != HTML {
		d.errorf(n.Pos, "%s: links of %s responses come from a selector: add select (for JSON: select: {jq: .next})", what, r.Match.Type)
	}
	return r
}

func (d *decoder) sitemap(n *node, i int) *Sitemap {
	r := &Sitemap{Pos: n.Pos}
	ok := d.fields(n, "sitemap", fmt.Sprintf("sitemap rule %d", i+1), func(key string, v *node) {
		switch key {
		case "name":
			if s, ok := d.str(v, "name"); ok {
				r.Name = s.Value
			}
		case "match":
			d.match(v, &r.Match)
			if r.Match.Type != "" && r.Match.Type != XML {
				d.errorf(v.Pos, "sitemap rule: match.type is xml or not given")
			}
		case "follow":
			r.Follow = d.regexps(v, "follow")
		case "allow":
			r.Allow = d.regexps(v, "allow")
		case "deny":
			r.Deny = d.regexps(v, "deny")
		case "alternate":
			r.Alternate = d.boolean(v, "alternate")
		case "lastmod_after":
			r.LastmodAfter, _ = d.date(v, "lastmod_after")
		case "lastmod_before":
			r.LastmodBefore, _ = d.date(v, "lastmod_before")
		}
	})
	if !ok {
		return nil
	}
	return r
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

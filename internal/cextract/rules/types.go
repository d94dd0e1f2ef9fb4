package rules

import (
	"regexp"

	"github.com/crawlutils/crawlutils/internal/cextract/process"
	"github.com/crawlutils/crawlutils/internal/linkfind"
)

// Format is how a rule reads responses.
type Format string

// Formats. Text is a response that is none of the others (text/plain,
// text/x-python, a robots.txt): only text rules read it, and xml, json and
// csv rules whose match.url its URL matches.
const (
	HTML Format = "html"
	XML  Format = "xml"
	JSON Format = "json"
	CSV  Format = "csv"
	Text Format = "text"
)

// File is a parsed rules file.
type File struct {
	Name     string // the file name, for messages
	Spider   string // the optional "name:" of the file
	Items    []*Item
	Links    []*Link
	Sitemaps []*Sitemap
	Tests    []*Test // contracts: stored pages and what the rules make of them
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
	// Files names the fields whose values (a URL or a list of URLs) are
	// downloaded with the item (Scrapy's FilesPipeline): cextract
	// --files-dir stores them and adds the item's "files".
	Files []String
}

// FilesField is the field of an item's data where the files of its rule's
// files: go (Scrapy's FILES_RESULT_FIELD).
const FilesField = "files"

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
	Kinds          linkfind.Kind // kinds of links (0: cextract's DefaultKinds, or Tags and Attrs when given)
	PostForms      bool          // forms: POST forms too
	Requests       bool          // also the URLs of the response's "requests" (a rendered page's XHR, fetch(), frames)
	Render         bool          // the requests ask cfetch to render them ("render": true)
	Priority       *int          // absolute priority of the requests
	PriorityStep   int           // added to the parent's priority otherwise
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

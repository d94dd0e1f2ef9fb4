package cextract

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"net/url"
	"strings"

	"github.com/antchfx/xmlquery"

	"github.com/crawlutils/crawlutils/internal/cextract/csvfeed"
	"github.com/crawlutils/crawlutils/internal/cextract/rules"
	"github.com/crawlutils/crawlutils/internal/cextract/sitemap"
	"github.com/crawlutils/crawlutils/internal/ndjson"
	"github.com/crawlutils/crawlutils/internal/record"
	"github.com/crawlutils/crawlutils/internal/selector"
)

// page is one response being extracted. Each representation of the body
// (the HTML tree, the XML tree, the decoded JSON, the CSV rows) is built at
// most once, when a rule first needs it, however many rules and fields use
// it.
type page struct {
	raw    []byte         // the response record
	fields []record.Field // its top-level fields, when already scanned
	resp   *record.Response
	req    *record.Request
	url    string // the final URL, else the request's
	body   body
	format rules.Format

	doc     *selector.Doc
	xmlDoc  *xmlquery.Node
	xmlErr  error
	jsonDoc any
	jsonErr error
	jsonOK  bool
	csvRows map[[2]byte]*csvTable
	baseURL *url.URL
	baseOK  bool
}

// Reasons a gzip-compressed body is not read; unlike the other skips, each
// is reported on stderr, since the page was meant to be read.
const (
	skippedTooLarge = "skipped_too_large" // over sitemap.MaxSize uncompressed
	skippedBadGzip  = "skipped_bad_gzip"  // not a valid gzip stream
)

// newPage prepares a response for extraction. It returns the reason when
// the response has nothing to extract (v1's skipped_* counters).
func newPage(raw []byte, fields []record.Field, resp *record.Response, req *record.Request) (*page, string) {
	return newPageFrom(raw, fields, resp, req, nil)
}

// newPageFrom is newPage for a response whose body, when quoted is not
// nil, was left in the record: quoted is its JSON string (see
// decodeLeavingBody).
func newPageFrom(raw []byte, fields []record.Field, resp *record.Response, req *record.Request, quoted []byte) (*page, string) {
	switch {
	case resp.Error != "":
		return nil, "skipped_error"
	case resp.Status != 0 && (resp.Status < 200 || resp.Status > 299):
		return nil, "skipped_status"
	case quoted == nil && resp.Body == "" && resp.BodyBase64 != "":
		// Binary: only XML (below) and a gzip-compressed body (a
		// sitemap.xml.gz) are read, the latter when it decompresses whole
		// within sitemap.MaxSize; it is kept compressed.
		data, err := base64.StdEncoding.DecodeString(resp.BodyBase64)
		if err == nil && !sitemap.IsGzip(data) && sniffFormat(string(data[:min(len(data), 1024)])) == rules.XML {
			// XML served with a type that says nothing of it (a sitemap as
			// application/octet-stream): read as text in the encoding its
			// declaration names, as Scrapy makes it an XmlResponse.
			var sb strings.Builder
			io.Copy(&sb, sitemap.DeclaredUTF8(bytes.NewReader(data)))
			p := &page{raw: raw, fields: fields, resp: resp, req: req, body: body{text: sb.String(), ok: true, size: sb.Len()}}
			p.url = pageURL(resp, req)
			p.format = rules.XML
			return p, ""
		}
		if err != nil || !sitemap.IsGzip(data) {
			return nil, "skipped_binary"
		}
		zr, err := sitemap.GunzipReader(bytes.NewReader(data), sitemap.MaxSize)
		var n int64
		if err == nil {
			n, err = io.Copy(io.Discard, sitemap.DeclaredUTF8(zr)) // the text's length, as body.open reads it
		}
		switch {
		case errors.Is(err, sitemap.ErrTooLarge):
			return nil, skippedTooLarge
		case err != nil:
			return nil, skippedBadGzip
		}
		p := &page{raw: raw, fields: fields, resp: resp, req: req, body: body{gz: data, size: int(n)}}
		p.url = pageURL(resp, req)
		p.format = sniffFormat(p.body.head())
		return p, ""
	case quoted == nil && resp.Body == "" && resp.BodyPath != "":
		return nil, "skipped_body_path"
	}
	p := &page{raw: raw, fields: fields, resp: resp, req: req, body: body{text: resp.Body, ok: true, size: len(resp.Body)}}
	if quoted != nil {
		p.body = body{quoted: quoted, size: -1}
	}
	p.url = pageURL(resp, req)
	p.format = detectFormat(header(resp.Headers, "content-type"), p.body.head())
	return p, ""
}

func pageURL(resp *record.Response, req *record.Request) string {
	if resp.URL != "" {
		return resp.URL
	}
	return req.URL
}

// header returns a response header, whatever the case of its name.
func header(h map[string]string, name string) string {
	if v, ok := h[name]; ok {
		return v
	}
	for k, v := range h {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

// detectFormat decides how a body reads from its Content-Type (the last of
// repeated ones, as browsers read them): HTML, JSON,
// XML or CSV, and any other type (text/plain, text/x-python, …) plain
// text. Only a response without a type, or with a type that says nothing
// (application/octet-stream), is read by its first bytes (body may be only
// those, see body.head).
func detectFormat(contentType, body string) rules.Format {
	media, _ := record.ContentType(contentType)
	switch {
	case record.IsHTML(media):
		return rules.HTML
	case strings.Contains(media, "json"):
		return rules.JSON
	case strings.Contains(media, "xml"):
		return rules.XML
	case media == "text/csv" || media == "application/csv" || media == "text/tab-separated-values":
		return rules.CSV
	case record.Untyped(media):
		return sniffFormat(body)
	}
	return rules.Text
}

// sniffFormat guesses the format from the first bytes of the body.
func sniffFormat(body string) rules.Format {
	s := strings.TrimLeft(body, " \t\r\n\ufeff")
	switch {
	case s == "":
		return rules.Text
	case s[0] == '{' || s[0] == '[':
		return rules.JSON
	case s[0] != '<':
		return rules.Text
	}
	head := strings.ToLower(s[:min(len(s), 512)])
	switch {
	case strings.Contains(head, "<html") || strings.HasPrefix(head, "<!doctype html"):
		return rules.HTML
	case strings.HasPrefix(head, "<?xml") || strings.Contains(head, "<rss") || strings.Contains(head, "<feed") ||
		strings.Contains(head, "<urlset") || strings.Contains(head, "<sitemapindex"):
		return rules.XML
	}
	return rules.HTML
}

// isCSS reports whether the response is a stylesheet (text/css).
func (p *page) isCSS() bool {
	media, _ := record.ContentType(header(p.resp.Headers, "content-type"))
	return media == "text/css"
}

// recordField returns the top-level field name of the response record.
func (p *page) recordField(name string) json.RawMessage {
	if p.fields == nil {
		p.fields, _ = record.Fields(p.raw)
		if p.fields == nil {
			p.fields = []record.Field{}
		}
	}
	var v json.RawMessage
	for _, f := range p.fields {
		if f.Key == name {
			v = f.Value // the last one wins, as in encoding/json
		}
	}
	return v
}

// html returns the page parsed as HTML.
func (p *page) html() *selector.Doc {
	if p.doc == nil {
		p.doc = selector.ParseDoc(p.body.whole(), p.url)
		p.doc.Record = p.raw
		p.doc.LookupFieldsWith(p.recordField)
	}
	return p.doc
}

// base is the URL relative links of the page resolve against: the HTML
// page's <base href>, else its URL.
func (p *page) base() *url.URL {
	if !p.baseOK {
		p.baseOK = true
		if p.doc != nil || p.format == rules.HTML {
			p.baseURL = p.html().Base()
		} else if u, err := url.Parse(p.url); err == nil && u.IsAbs() {
			p.baseURL = u
		}
	}
	return p.baseURL
}

// xml returns the page parsed as XML.
func (p *page) xml() (*xmlquery.Node, error) {
	if p.xmlDoc == nil && p.xmlErr == nil {
		p.xmlDoc, p.xmlErr = parseXML(p.body.whole())
	}
	return p.xmlDoc, p.xmlErr
}

// json returns the page decoded as JSON, numbers kept exact.
func (p *page) json() (any, error) {
	if !p.jsonOK {
		p.jsonOK = true
		d := json.NewDecoder(strings.NewReader(p.body.whole()))
		d.UseNumber()
		if p.jsonErr = d.Decode(&p.jsonDoc); p.jsonErr == nil && d.More() {
			p.jsonErr = errors.New("more than one JSON value")
		}
	}
	return p.jsonDoc, p.jsonErr
}

// csvTable is a CSV feed read with one delimiter and quote: its rows, and
// the names of its columns should its first row be the header.
type csvTable struct {
	rows  [][]string
	first *csvHeader // the first row as the header; nil without rows
}

// csv returns the page's rows read with these options, once per page
// whichever rules read them, so that the renamed columns of its header row
// are reported once.
func (p *page) csv(o *rules.CSVOptions) *csvTable {
	key := [2]byte{o.Delimiter, o.Quote}
	if t, ok := p.csvRows[key]; ok {
		return t
	}
	if p.csvRows == nil {
		p.csvRows = map[[2]byte]*csvTable{}
	}
	t := &csvTable{rows: csvfeed.Parse(strings.TrimPrefix(p.body.whole(), ndjson.BOM), o.Delimiter, o.Quote)}
	if len(t.rows) > 0 {
		t.first = newCSVHeader(t.rows[0])
	}
	p.csvRows[key] = t
	return t
}

// parseXML parses an XML document with xmlquery, its panics turned into
// errors.
func parseXML(body string) (doc *xmlquery.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			doc, err = nil, errors.New("XML parser failed")
		}
	}()
	return xmlquery.ParseWithOptions(strings.NewReader(body), xmlquery.ParserOptions{Decoder: &xmlquery.DecoderOptions{
		Entity: xml.HTMLEntity,
		// cfetch already converted the body to UTF-8, whatever the
		// declaration says.
		CharsetReader: func(_ string, r io.Reader) (io.Reader, error) { return r, nil },
	}})
}

package cextract

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/linkfind"
	"github.com/crawlutils/crawlutils/internal/warc"
)

// --warc-outlinks FILE: for each response that gave follow-up requests, a
// WARC metadata record (application/warc-fields) of its outlinks, as
// Heritrix writes them: "outlink: URL HOP CONTEXT". Only the links
// cextract emitted are listed, after the rules' filters and the crawl
// policy: the record says what the crawl went on to, the same list as the
// page's follow-up requests. The record refers to the page's response
// record (WARC-Refers-To) when the response carries cfetch's
// warc_record_id; it is in another file, written by another process, so
// it is not WARC-Concurrent-To.

// outlinkMaxSize is the size past which the next file of the series is
// started: cfetch's --warc-max-size default (Heritrix's WARC_MAX_SIZE).
const outlinkMaxSize = 1 << 30

// outlinkArchive writes the outlinks' metadata records.
type outlinkArchive struct {
	w     *warc.Writer
	now   func() time.Time
	block strings.Builder // the outlinks of the response in hand
	n     int             // lines in block
}

// openOutlinks starts the WARC file series of path.
func openOutlinks(path string) (*outlinkArchive, error) {
	host, _ := os.Hostname()
	w, err := warc.Create(path, warc.WriterOptions{MaxSize: outlinkMaxSize, Info: []warc.Field{
		{Name: "software", Value: "crawlutils cextract " + cli.Version},
		{Name: "format", Value: "WARC File Format 1.1"},
		{Name: "conformsTo", Value: "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/"},
		{Name: "hostname", Value: host},
		{Name: "operating-system", Value: runtime.GOOS},
		{Name: "description", Value: "outlinks of the pages crawled, as metadata records"},
	}})
	if err != nil {
		return nil, fmt.Errorf("--warc-outlinks: %v", err)
	}
	return &outlinkArchive{w: w, now: time.Now}, nil
}

// add records one emitted link of the response in hand.
func (a *outlinkArchive) add(c *candidate) {
	hop, context := outlinkHop(c)
	a.block.WriteString("outlink: ")
	a.block.WriteString(strings.NewReplacer(" ", "%20", "\r", "%0D", "\n", "%0A").Replace(c.url))
	a.block.WriteString(" ")
	a.block.WriteString(hop)
	a.block.WriteString(" ")
	a.block.WriteString(context)
	a.block.WriteString("\r\n")
	a.n++
}

// outlinkHop is Heritrix's hop type and link context of c: L (a link) or
// E (an embedded resource) or X (a URL guessed from a script), and where it
// was found as Heritrix's element/@attribute ("a/@href"), else the source
// cextract names ("header:Link", "sitemap:url"), else Heritrix's
// =NAVLINK_MISC or =EMBED_MISC.
func outlinkHop(c *candidate) (hop, context string) {
	hop = "L"
	switch {
	case c.kind&linkfind.Scripts != 0:
		hop = "X"
	case c.kind&linkfind.Resources != 0:
		hop = "E"
	}
	context = c.source
	if el, attr, ok := strings.Cut(context, "@"); ok && !strings.ContainsAny(context, " :") {
		context = el + "/@" + attr
	}
	if context == "" {
		context = map[string]string{"L": "=NAVLINK_MISC", "E": "=EMBED_MISC", "X": "=SPECULATIVE_MISC"}[hop]
	}
	return hop, strings.ReplaceAll(context, " ", "_")
}

// flush writes the metadata record of the response in hand, if it had
// outlinks: target is the page's URL, refersTo its response record's ID
// ("" when unknown).
func (a *outlinkArchive) flush(target, refersTo string) error {
	if a.n == 0 {
		return nil
	}
	rec := warc.New(warc.TypeMetadata, a.now(), []byte(a.block.String()))
	a.block.Reset()
	a.n = 0
	rec.Set("WARC-Target-URI", target)
	if refersTo != "" {
		rec.Set("WARC-Refers-To", refersTo)
	}
	rec.Set("Content-Type", "application/warc-fields")
	return a.w.Write(rec)
}

// close syncs and closes the current file.
func (a *outlinkArchive) close() error {
	if err := a.w.Close(); err != nil {
		return fmt.Errorf("--warc-outlinks: %v", err)
	}
	return nil
}

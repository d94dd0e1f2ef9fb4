package demosite

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"time"
)

// encoding returns the x/text encoding of cs (nil for UTF-8).
func (cs charset) encoding() encoding.Encoding {
	switch cs {
	case csWindows1252:
		return charmap.Windows1252
	case csISO88591:
		return charmap.ISO8859_1
	case csShiftJIS:
		return japanese.ShiftJIS
	case csEUCKR:
		return korean.EUCKR
	}
	return nil
}

// String returns the charset label used in the page's <meta>.
func (cs charset) String() string {
	switch cs {
	case csWindows1252:
		return "windows-1252"
	case csISO88591:
		return "iso-8859-1"
	case csShiftJIS:
		return "shift_jis"
	case csEUCKR:
		return "euc-kr"
	}
	return "utf-8"
}

// metaTag is the charset declaration placed first in <head>. Legacy
// charsets alternate between the two HTML forms.
func (cs charset) metaTag() string {
	switch cs {
	case csWindows1252, csEUCKR:
		return `<meta http-equiv="Content-Type" content="text/html; charset=` + cs.String() + `">`
	}
	return `<meta charset="` + cs.String() + `">`
}

// contentType is the HTTP Content-Type: legacy charsets are declared only
// in the page's <meta>, never in the header.
func (cs charset) contentType() string {
	if cs == csUTF8 {
		return ctHTML
	}
	return "text/html"
}

const (
	ctHTML  = "text/html; charset=utf-8"
	ctXML   = "application/xml"
	ctText  = "text/plain; charset=utf-8"
	ctImage = "image/jpeg"
	ctJSON  = "application/json"
)

// encodePage converts a page rendered in UTF-8 to cs. Characters cs cannot
// represent (e.g. "£" in Shift_JIS) become numeric character references,
// as many real legacy sites emit them; the markup is ASCII so these only
// ever land in text and attribute values.
func encodePage(cs charset, page []byte) []byte {
	enc := cs.encoding()
	if enc == nil {
		return page
	}
	out, err := encoding.HTMLEscapeUnsupported(enc.NewEncoder()).Bytes(page)
	if err != nil {
		panic("demosite: encoding page as " + cs.String() + ": " + err.Error())
	}
	return out
}

// gzipBytes compresses b. The gzip header carries no name or time, so the
// output is a pure function of b.
func gzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// acceptsGzip reports whether an Accept-Encoding header value allows gzip
// (a "gzip" or "x-gzip" coding whose q is not zero).
func acceptsGzip(header string) bool {
	for part := range strings.SplitSeq(header, ",") {
		name, params, _ := strings.Cut(part, ";")
		name = strings.TrimSpace(name)
		if !strings.EqualFold(name, "gzip") && !strings.EqualFold(name, "x-gzip") {
			continue
		}
		for p := range strings.SplitSeq(params, ";") {
			k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
			if strings.EqualFold(strings.TrimSpace(k), "q") {
				if q, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && q == 0 {
					return false
				}
			}
		}
		return true
	}
	return false
}

// response is a fully rendered response body. Cached responses are shared
// by all requests; the gzip variant is made on first demand.
type response struct {
	status int
	ctype  string
	body   []byte

	gzOnce sync.Once
	gz     []byte

	// In a round (see SetRound): which validators the page has, and
	// its Last-Modified; its ETag is made from its body when first sent.
	validator    int
	lastModified time.Time
	etagOnce     sync.Once
	etag         string
}

func (p *response) gzipped() []byte {
	p.gzOnce.Do(func() { p.gz = gzipBytes(p.body) })
	return p.gz
}

// pageCache memoises rendered responses by key (the URL path). Only
// bounded, host-independent pages are cached.
type pageCache struct{ m sync.Map }

type cacheEntry struct {
	once sync.Once
	resp *response
}

func (c *pageCache) get(key string, build func() *response) *response {
	v, ok := c.m.Load(key)
	if !ok {
		v, _ = c.m.LoadOrStore(key, new(cacheEntry))
	}
	e := v.(*cacheEntry)
	e.once.Do(func() { e.resp = build() })
	return e.resp
}

// send writes resp. HTML bodies are gzip-compressed when the request
// accepts gzip; HEAD requests get the headers only.
func send(w http.ResponseWriter, r *http.Request, resp *response) {
	h := w.Header()
	if roundOf(r) > 0 && validate(h, r, resp) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", resp.ctype)
	body := resp.body
	if strings.HasPrefix(resp.ctype, "text/html") {
		h.Set("Vary", "Accept-Encoding")
		if acceptsGzip(r.Header.Get("Accept-Encoding")) {
			body = resp.gzipped()
			h.Set("Content-Encoding", "gzip")
		}
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(resp.status)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

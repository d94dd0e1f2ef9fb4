package cfetch

import (
	"net/http"
	"strings"

	"github.com/crawlutils/crawlutils/internal/ascii"
	"github.com/crawlutils/crawlutils/internal/record"
)

// textTypes are the media types outside text/* whose bodies are text.
var textTypes = map[string]bool{
	"application/xml":          true,
	"application/json":         true,
	"application/javascript":   true,
	"application/x-javascript": true,
	"application/ecmascript":   true,
	"application/xhtml+xml":    true,
	"application/rss+xml":      true,
	"application/atom+xml":     true,
}

// isTextMedia reports whether a body of this media type is text (written
// as "body", converted to UTF-8) rather than binary ("body_base64").
func isTextMedia(media string) bool {
	if strings.HasPrefix(media, "text/") || textTypes[media] {
		return true
	}
	return strings.HasSuffix(media, "+xml") || strings.HasSuffix(media, "+json")
}

// isXMLMedia reports whether the media type is XML (XHTML, RSS, Atom and
// SVG too), whose XML declaration names its charset.
func isXMLMedia(media string) bool {
	return media == "application/xml" || media == "text/xml" || strings.HasSuffix(media, "+xml")
}

// mediaTypeOf returns the media type and declared charset of a response:
// from its Content-Type (the last valid one of several, as browsers read
// them), or sniffed from the body when it has none or one that says
// nothing (record.Untyped: application/octet-stream, as static servers
// type a file without an extension). The charset is the header's: a
// sniffed type never declares one.
func mediaTypeOf(h http.Header, data []byte) (media, charset string, sniffed bool) {
	if media, charset = contentType(h); !record.Untyped(media) {
		return media, charset, false
	}
	media, _ = record.ContentType(http.DetectContentType(data))
	return media, charset, true
}

// contentType reads the response's Content-Type headers, all of them, as
// record.ContentType does.
func contentType(h http.Header) (media, charset string) {
	return record.ContentType(strings.Join(h.Values("Content-Type"), ", "))
}

// isPage reports whether a document the browser loads for --render is a
// page to render, from its response's headers: HTML, XHTML or SVG, or no
// type at all (the browser sniffs it). Any other type (a PDF, JSON, plain
// text, XML, an image) and a download (Content-Disposition: attachment)
// is taken as the server sent it: the browser would show its own viewer
// page around it, or wait for a page that never comes.
func isPage(h http.Header) bool {
	if d, _, _ := strings.Cut(h.Get("Content-Disposition"), ";"); ascii.Lower(strings.TrimSpace(d)) == "attachment" {
		return false
	}
	if strings.TrimSpace(h.Get("Content-Type")) == "" {
		return true
	}
	media, _ := contentType(h)
	return record.IsHTML(media) || media == "image/svg+xml"
}

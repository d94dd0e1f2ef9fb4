package cfetch

import (
	"net/http"
	"strings"

	"github.com/crawlutils/crawlutils/internal/ascii"
)

// parseContentType splits a Content-Type header leniently: the lower-case
// media type and the charset parameter (unquoted), if any. Unlike
// mime.ParseMediaType it does not give up on a malformed parameter
// elsewhere in the header, which the web has plenty of.
func parseContentType(ct string) (media, charset string) {
	parts := strings.Split(ct, ";")
	media = ascii.Lower(strings.TrimSpace(parts[0]))
	for _, p := range parts[1:] {
		k, v, ok := strings.Cut(p, "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "charset") {
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		charset = strings.TrimSpace(v)
		break
	}
	return media, charset
}

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

// isHTMLMedia reports whether the media type is HTML, whose markup the
// charset detector should skip.
func isHTMLMedia(media string) bool {
	return media == "text/html" || media == "application/xhtml+xml"
}

// mediaTypeOf returns the media type and declared charset of a response:
// from its Content-Type, or sniffed from the body when it has none. A
// sniffed type never declares a charset.
func mediaTypeOf(h http.Header, data []byte) (media, charset string, sniffed bool) {
	if ct := h.Get("Content-Type"); strings.TrimSpace(ct) != "" {
		media, charset = parseContentType(ct)
		if media != "" {
			return media, charset, false
		}
	}
	media, _ = parseContentType(http.DetectContentType(data))
	return media, "", true
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
	ct := h.Get("Content-Type")
	if strings.TrimSpace(ct) == "" {
		return true
	}
	media, _ := parseContentType(ct)
	return isHTMLMedia(media) || media == "image/svg+xml"
}

package robots

import (
	"bytes"
	"strings"
)

// EachLine calls fn with the lower-cased field name and the trimmed value
// of every "name: value" line of a robots.txt body, in order (RFC 9309:
// lines end at CR or LF, '#' starts a comment, a leading UTF-8 BOM is
// ignored); lines without a colon are skipped.
func EachLine(body []byte, fn func(key, value string)) {
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	for len(body) > 0 {
		var line []byte
		if i := bytes.IndexAny(body, "\r\n"); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			line, body = body, nil
		}
		if i := bytes.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		k, v, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		fn(strings.ToLower(strings.TrimSpace(string(k))), strings.TrimSpace(string(v)))
	}
}

package cfetch

import (
	"fmt"
	"unicode/utf8"

	"github.com/crawlutils/crawlutils/internal/ndjson"
	"github.com/crawlutils/crawlutils/internal/record"
)

// maxRecordLine is the longest record line the tools read (records.md):
// a response record longer than this could not be read downstream.
const maxRecordLine = ndjson.DefaultMaxLine

// recordOverhead bounds what a response record spends besides its strings
// and its request: field names, punctuation, numbers, the newline.
const recordOverhead = 1 << 10

// fitLine makes sure resp encodes to at most max bytes: when it would not,
// the body is dropped and the record becomes a "too_large" error (a text
// body of control bytes escapes to six times its size). The size is
// computed without encoding: a bound for the body first, its exact escaped
// length only when the bound is over. It reports whether resp was changed.
func fitLine(resp *record.Response, max int) bool {
	rest := responseLenWithoutBody(resp)
	switch {
	case resp.Body != "":
		if rest+6*len(resp.Body)+2 <= max {
			return false
		}
		n := jsonStringLen(resp.Body)
		if rest+n <= max {
			return false
		}
		failTooLarge(resp, rest+n, max, fmt.Sprintf("the %d-byte body escapes to %d bytes of JSON", len(resp.Body), n))
		return true
	case resp.BodyBase64 != "":
		if n := len(resp.BodyBase64) + 2; rest+n > max {
			failTooLarge(resp, rest+n, max, fmt.Sprintf("the body is %d bytes of base64", len(resp.BodyBase64)))
			return true
		}
	}
	if rest > max {
		// No body, yet too long (huge headers or warnings with a huge
		// request): keep what settles the request.
		failTooLarge(resp, rest, max, "")
		resp.Headers, resp.Warnings, resp.Redirects = nil, nil, nil
		return true
	}
	return false
}

func failTooLarge(resp *record.Response, n, max int, why string) {
	resp.Body, resp.BodyBase64, resp.Encoding, resp.EncodingSource = "", "", "", ""
	resp.Error = ErrTooLarge
	resp.ErrorDetail = fmt.Sprintf("the response record would be about %d bytes, over the %s line limit of records", n, formatSize(int64(max)))
	if why != "" {
		resp.ErrorDetail += ": " + why
	}
}

// responseLenWithoutBody bounds the encoded length of resp without its
// body fields.
func responseLenWithoutBody(resp *record.Response) int {
	n := recordOverhead + len(resp.Request) + jsonStringLen(resp.URL) +
		jsonStringLen(resp.BodyPath) + jsonStringLen(resp.Encoding) + jsonStringLen(resp.EncodingSource) +
		jsonStringLen(resp.FetchedAt) + jsonStringLen(resp.Error) + jsonStringLen(resp.ErrorDetail)
	for k, v := range resp.Headers {
		n += jsonStringLen(k) + jsonStringLen(v) + 2
	}
	for _, r := range resp.Redirects {
		n += jsonStringLen(r.URL) + 32
	}
	for _, w := range resp.Warnings {
		n += jsonStringLen(w) + 1
	}
	for k, v := range resp.Extra {
		n += jsonStringLen(k) + len(v) + 2
	}
	return n
}

// jsonStringLen is the length of s as encoding/json writes it without HTML
// escaping, quotes included.
func jsonStringLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			switch {
			case b == '"' || b == '\\' || b == '\b' || b == '\f' || b == '\n' || b == '\r' || b == '\t':
				n += 2
			case b < 0x20:
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			n += 6 // \ufffd
		case c == '\u2028' || c == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}

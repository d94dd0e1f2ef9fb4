package cfetch

import (
	"encoding/base64"
	"fmt"

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
func fitLine(resp *response, max int) bool {
	rest := responseLenWithoutBody(resp.Response)
	switch {
	case len(resp.text) > 0:
		if rest+6*len(resp.text)+2 <= max {
			return false
		}
		n := record.StringLen(resp.text)
		if rest+n <= max {
			return false
		}
		failTooLarge(resp, rest+n, max, fmt.Sprintf("the %d-byte body escapes to %d bytes of JSON", len(resp.text), n))
		return true
	case len(resp.bin) > 0:
		if n := base64.StdEncoding.EncodedLen(len(resp.bin)) + 2; rest+n > max {
			failTooLarge(resp, rest+n, max, fmt.Sprintf("the body is %d bytes of base64", n-2))
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

func failTooLarge(resp *response, n, max int, why string) {
	resp.dropBody()
	resp.Encoding, resp.EncodingSource = "", ""
	resp.Error = ErrTooLarge
	resp.ErrorDetail = fmt.Sprintf("the response record would be about %d bytes, over the %s line limit of records", n, formatSize(int64(max)))
	if why != "" {
		resp.ErrorDetail += ": " + why
	}
}

// responseLenWithoutBody bounds the encoded length of resp without its
// body fields.
func responseLenWithoutBody(resp *record.Response) int {
	n := recordOverhead + len(resp.Request) + record.StringLen(resp.URL) +
		record.StringLen(resp.BodyPath) + record.StringLen(resp.Encoding) + record.StringLen(resp.EncodingSource) +
		record.StringLen(resp.FetchedAt) + record.StringLen(resp.Error) + record.StringLen(resp.ErrorDetail)
	for k, v := range resp.Headers {
		n += record.StringLen(k) + record.StringLen(v) + 2
	}
	for _, r := range resp.Redirects {
		n += record.StringLen(r.URL) + 32
	}
	for _, w := range resp.Warnings {
		n += record.StringLen(w) + 1
	}
	for k, v := range resp.Extra {
		n += record.StringLen(k) + len(v) + 2
	}
	return n
}

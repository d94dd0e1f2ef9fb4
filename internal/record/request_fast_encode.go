package record

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/crawlutils/crawlutils/internal/percent"
)

// encodeRequest encodes r as Encode does with encoding/json, byte for byte.
// ok is false when r's attrs are not valid JSON; encoding/json then says
// why.
func encodeRequest(r *Request) (line []byte, ok bool) {
	b := openRecord(make([]byte, 0, requestSize(r)), r.Kind, r.URL)
	b = appendStringField(b, `,"method":`, r.Method)
	if len(r.Headers) > 0 {
		b = appendHeaders(append(b, `,"headers":`...), r.Headers)
	}
	b = appendStringField(b, `,"body":`, r.Body)
	b = appendIntField(b, `,"priority":`, int64(r.Priority))
	b = appendIntField(b, `,"depth":`, int64(r.Depth))
	b = appendStringField(b, `,"referer":`, r.Referer)
	if r.DontFilter {
		b = append(b, `,"dont_filter":true`...)
	}
	b = appendIntField(b, `,"retries":`, int64(r.Retries))
	b = appendStringField(b, `,"crawlid":`, r.CrawlID)
	b = appendStringField(b, `,"appid":`, r.AppID)
	b = appendStringField(b, `,"spiderid":`, r.SpiderID)
	b = appendIntField(b, `,"maxdepth":`, int64(r.MaxDepth))
	b = appendStringsField(b, `,"allowed_domains":`, r.AllowedDomains)
	b = appendStringsField(b, `,"allow_regex":`, r.AllowRegex)
	b = appendStringsField(b, `,"deny_regex":`, r.DenyRegex)
	if r.DenyExtensions != nil { // omitzero: [] is written, nil is not
		b = appendStrings(append(b, `,"deny_extensions":`...), r.DenyExtensions)
	}
	b = appendIntField(b, `,"expires":`, r.Expires)
	b = appendStringField(b, `,"useragent":`, r.UserAgent)
	if b, ok = appendRawField(b, `,"attrs":`, r.Attrs); !ok {
		return nil, false
	}
	if len(r.Redirects) > 0 {
		b = appendRedirects(append(b, `,"redirects":`...), r.Redirects)
	}
	b = appendStringField(b, `,"lease":`, r.Lease)
	return closeRecord(b, r.Extra, rawValid(r)), true
}

// openRecord starts a record's line: its kind and URL, which every
// record has, first.
func openRecord(b []byte, kind, url string) []byte {
	b = AppendString(append(b, `{"kind":`...), kind)
	return AppendString(append(b, `,"url":`...), url)
}

// closeRecord ends a record's line: its unknown members (extra), the
// closing brace and newline; where a raw member needed mending (rawValid
// false), the line is mended, as Encode does.
func closeRecord(b []byte, extra map[string]json.RawMessage, rawValid bool) []byte {
	if len(extra) > 0 {
		b = appendExtra(b, extra)
	}
	b = append(b, '}', '\n')
	if !rawValid {
		b = Mend(b)
	}
	return b
}

// appendRawField appends name and the JSON value raw, compacted, unless raw
// is empty (omitempty); ok is false when raw is not one valid JSON value.
func appendRawField(b []byte, name string, raw []byte) ([]byte, bool) {
	if len(raw) == 0 {
		return b, true
	}
	return appendCompact(append(b, name...), raw)
}

// requestSize estimates the length of r encoded, to allocate once: each
// field present with its name (at most 19 bytes with its quotes, colon and
// comma), and some room for escapes.
func requestSize(r *Request) int {
	n := 32 + len(r.Kind) + len(r.URL)
	for _, s := range [...]string{r.Method, r.Body, r.Referer, r.CrawlID, r.AppID, r.SpiderID, r.UserAgent, r.Lease} {
		if s != "" {
			n += 19 + len(s)
		}
	}
	for _, i := range [...]int64{int64(r.Priority), int64(r.Depth), int64(r.Retries), int64(r.MaxDepth), r.Expires} {
		if i != 0 {
			n += 19 + 5 // most are short; appending grows b for the rest
		}
	}
	if r.DontFilter {
		n += 19
	}
	if len(r.Attrs) > 0 {
		n += 19 + len(r.Attrs)
	}
	for _, h := range r.Redirects {
		n += 32 + len(h.URL)
	}
	if len(r.Headers) > 0 {
		n += 19
		for k, v := range r.Headers {
			n += len(k) + len(v) + 6
		}
	}
	for _, list := range [...][]string{r.AllowedDomains, r.AllowRegex, r.DenyRegex, r.DenyExtensions} {
		if list != nil {
			n += 19
			for _, s := range list {
				n += len(s) + 3
			}
		}
	}
	for k, v := range r.Extra {
		n += len(k) + len(v) + 4
	}
	return n
}

// appendStringField appends name and s, unless s is empty (omitempty).
func appendStringField(b []byte, name, s string) []byte {
	if s == "" {
		return b
	}
	return AppendString(append(b, name...), s)
}

// appendIntField appends name and n, unless n is 0 (omitempty).
func appendIntField(b []byte, name string, n int64) []byte {
	if n == 0 {
		return b
	}
	return strconv.AppendInt(append(b, name...), n, 10)
}

// appendStringsField appends name and list, unless list is empty
// (omitempty).
func appendStringsField(b []byte, name string, list []string) []byte {
	if len(list) == 0 {
		return b
	}
	return appendStrings(append(b, name...), list)
}

// appendStrings appends list as a JSON array of strings.
func appendStrings(b []byte, list []string) []byte {
	b = append(b, '[')
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, s)
	}
	return append(b, ']')
}

// appendHeaders appends m as encoding/json does: keys in sorted order.
func appendHeaders(b []byte, m map[string]string) []byte {
	var arr [16]string
	keys := arr[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, k)
		b = append(b, ':')
		b = AppendString(b, m[k])
	}
	return append(b, '}')
}

// appendCompact appends the JSON value v without insignificant white
// space, as encoding/json writes a json.RawMessage (without HTML escaping).
// ok is false when v is not one valid JSON value.
func appendCompact(b, v []byte) ([]byte, bool) {
	i := skipSpace(v, 0)
	end := scanValue(v, i, 0)
	if end < 0 || skipSpace(v, end) != len(v) {
		return b, false
	}
	if i == 0 && end == len(v) && bytes.IndexByte(v, ' ') < 0 && bytes.IndexByte(v, '\n') < 0 &&
		bytes.IndexByte(v, '\t') < 0 && bytes.IndexByte(v, '\r') < 0 {
		return append(b, v...), true
	}
	start, inString := i, false
	for j := i; j < end; j++ {
		c := v[j]
		switch {
		case inString && c == '\\':
			j++ // the escaped character, maybe a quote
		case c == '"':
			inString = !inString
		case !inString && (c == ' ' || c == '\n' || c == '\t' || c == '\r'):
			b = append(b, v[start:j]...)
			start = j + 1
		}
	}
	return append(b, v[start:end]...), true
}

// appendExtra appends the members of extra in key order, as Encode does
// with encoding/json: keys as json.Marshal writes them (HTML characters
// escaped), values as compact leaves them. b is a non-empty object being
// written.
func appendExtra(b []byte, extra map[string]json.RawMessage) []byte {
	var arr [8]string
	keys := arr[:0]
	for k := range extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b = append(b, ',')
		b = appendStringHTML(b, k)
		b = append(b, ':')
		b = append(b, compact(extra[k])...)
	}
	return b
}

// appendStringHTML is AppendString with <, > and & escaped, as json.Marshal
// writes strings.
func appendStringHTML(b []byte, s string) []byte {
	if !strings.ContainsAny(s, "<>&") {
		return AppendString(b, s)
	}
	// AppendString writes these three only where s has them.
	for _, c := range AppendString(nil, s) {
		if c == '<' || c == '>' || c == '&' {
			b = append(b, '\\', 'u', '0', '0', percent.LowerHex[c>>4], percent.LowerHex[c&0xF])
		} else {
			b = append(b, c)
		}
	}
	return b
}

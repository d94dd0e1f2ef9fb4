package record

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// The fast paths for requests, the records every tool of the crawl loop
// decodes and encodes (cqueue push, cfetch, cextract, the frontier).
// encoding/json spends most of its time on reflection; these read and write
// a Request directly. They take only the plain cases and report ok false
// for anything unusual (a value of another JSON type, a key that matches a
// field only without regard to case, a repeated field, a number with a
// fraction or too many digits, invalid attrs, …); Decode and Encode then run
// encoding/json, so results and errors are always exactly encoding/json's.
// The fuzz targets FuzzDecodeRequest and FuzzEncodeRequest hold the two
// paths to that.

// requestKeys are the JSON names of Request's fields.
var requestKeys = knownKeys((*Request)(nil))

// zeroRequest reports whether every field of r but Extra is zero.
// encoding/json decodes into what is there (it keeps fields the input does
// not name, merges maps, reuses slices), so the fast path takes only a
// zero request. Decode overwrites Extra anyway.
func zeroRequest(r *Request) bool {
	return r.Kind == "" && r.URL == "" && r.Method == "" && r.Headers == nil && r.Body == "" &&
		r.Priority == 0 && r.Depth == 0 && r.Referer == "" && !r.DontFilter && r.Retries == 0 &&
		r.CrawlID == "" && r.AppID == "" && r.SpiderID == "" &&
		r.MaxDepth == 0 && r.AllowedDomains == nil && r.AllowRegex == nil && r.DenyRegex == nil &&
		r.DenyExtensions == nil && r.Expires == 0 && r.UserAgent == "" && r.Attrs == nil &&
		r.Redirects == nil && r.Lease == ""
}

// decodeRequest decodes the JSON object raw into r, which must be zero but
// for Extra, as encoding/json and unknownFields would. ok is false when
// raw is not a valid object or holds anything decodeRequest leaves to
// encoding/json; r is then partly written and must be reset.
func decodeRequest(raw []byte, r *Request) (ok bool) {
	r.Extra = nil
	var seen uint32 // the fields already decoded, by bit
	ok = true
	valid := scanObject(raw, func(key, value []byte) {
		if ok {
			ok = decodeRequestMember(r, key, value, &seen)
		}
	})
	return valid && ok
}

// decodeRequestMember decodes one top-level member of a request.
func decodeRequestMember(r *Request, key, v []byte, seen *uint32) bool {
	var bit uint32
	var ok bool
	switch string(key) {
	case "kind":
		bit, ok = 1<<0, decodeKind(v, &r.Kind)
	case "url":
		bit, ok = 1<<1, decodeString(v, &r.URL)
	case "method":
		bit, ok = 1<<2, decodeString(v, &r.Method)
	case "headers":
		bit, ok = 1<<3, decodeHeaders(v, &r.Headers)
	case "body":
		bit, ok = 1<<4, decodeString(v, &r.Body)
	case "priority":
		bit, ok = 1<<5, decodeInt(v, &r.Priority)
	case "depth":
		bit, ok = 1<<6, decodeInt(v, &r.Depth)
	case "referer":
		bit, ok = 1<<7, decodeString(v, &r.Referer)
	case "dont_filter":
		bit, ok = 1<<8, decodeBool(v, &r.DontFilter)
	case "retries":
		bit, ok = 1<<9, decodeInt(v, &r.Retries)
	case "crawlid":
		bit, ok = 1<<10, decodeString(v, &r.CrawlID)
	case "appid":
		bit, ok = 1<<11, decodeString(v, &r.AppID)
	case "spiderid":
		bit, ok = 1<<12, decodeString(v, &r.SpiderID)
	case "maxdepth":
		bit, ok = 1<<13, decodeInt(v, &r.MaxDepth)
	case "allowed_domains":
		bit, ok = 1<<14, decodeStrings(v, &r.AllowedDomains)
	case "allow_regex":
		bit, ok = 1<<15, decodeStrings(v, &r.AllowRegex)
	case "deny_regex":
		bit, ok = 1<<16, decodeStrings(v, &r.DenyRegex)
	case "deny_extensions":
		bit, ok = 1<<17, decodeStrings(v, &r.DenyExtensions)
	case "expires":
		bit, ok = 1<<18, decodeInt(v, &r.Expires)
	case "useragent":
		bit, ok = 1<<19, decodeString(v, &r.UserAgent)
	case "attrs":
		// As json.RawMessage.UnmarshalJSON: a copy, null included.
		bit, ok = 1<<20, true
		r.Attrs = append(json.RawMessage(nil), v...)
	case "lease":
		bit, ok = 1<<21, decodeString(v, &r.Lease)
	default:
		// A field added to Request but not above, or a key encoding/json
		// matches to a field without regard to case: encoding/json's.
		if requestKeys[string(key)] || foldsToRequestKey(key) {
			return false
		}
		if r.Extra == nil {
			r.Extra = map[string]json.RawMessage{}
		}
		r.Extra[string(key)] = json.RawMessage(v) // the last one wins, as in unknownFields
		return true
	}
	// A repeated field: encoding/json decodes into what the first one left
	// (maps merge, slices are reused); not worth copying.
	if *seen&bit != 0 {
		return false
	}
	*seen |= bit
	return ok
}

// foldsToRequestKey reports whether key, not one of requestKeys, names a
// field of Request for encoding/json, which matches keys with Unicode
// simple folding: "URL", "Depth", "\u212aind" (the Kelvin sign).
func foldsToRequestKey(key []byte) bool {
	plain := true // lower-case ASCII only: it folds to a name only if it is one
	for _, c := range key {
		if c >= 0x80 || 'A' <= c && c <= 'Z' {
			plain = false
			break
		}
	}
	if plain {
		return false
	}
	for name := range requestKeys {
		if strings.EqualFold(string(key), name) {
			return true
		}
	}
	return false
}

// decodeString decodes a string value into dst; null leaves dst alone, as
// in encoding/json. v is a valid JSON value.
func decodeString(v []byte, dst *string) bool {
	switch v[0] {
	case '"':
		s, ok := Unquote(v)
		*dst = s
		return ok
	case 'n':
		return true
	}
	return false
}

// decodeKind is decodeString without an allocation for "request".
func decodeKind(v []byte, dst *string) bool {
	if string(v) == `"`+KindRequest+`"` {
		*dst = KindRequest
		return true
	}
	return decodeString(v, dst)
}

// decodeBool decodes true or false into dst; null leaves dst alone.
func decodeBool(v []byte, dst *bool) bool {
	switch v[0] {
	case 't':
		*dst = true
		return true
	case 'f':
		*dst = false
		return true
	case 'n':
		return true
	}
	return false
}

// decodeInt decodes an integer of at most 18 digits (9 where int is 32
// bits wide), which fits any int, into dst; null leaves dst alone. A
// fraction, an exponent or more digits are left to encoding/json (it
// accepts some, such as -0, and refuses others).
func decodeInt[T int | int64](v []byte, dst *T) bool {
	if v[0] == 'n' {
		return true
	}
	digits := v
	if digits[0] == '-' {
		digits = digits[1:]
	}
	max := 18
	if T(1)<<31<<1 == 0 { // a 32-bit int
		max = 9
	}
	if len(digits) == 0 || len(digits) > max {
		return false
	}
	var n T
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
		n = n*10 + T(c-'0')
	}
	if v[0] == '-' {
		n = -n
	}
	*dst = n
	return true
}

// decodeStrings decodes an array of strings into dst as encoding/json
// decodes it into a nil slice: null is nil, [] is empty but not nil, a null
// element is "".
func decodeStrings(v []byte, dst *[]string) bool {
	switch v[0] {
	case 'n':
		*dst = nil
		return true
	case '[':
	default:
		return false
	}
	out := []string{}
	i := skipSpace(v, 1)
	if v[i] == ']' {
		*dst = out
		return true
	}
	for {
		switch v[i] {
		case '"':
			end := scanString(v, i)
			s, ok := Unquote(v[i:end])
			if !ok {
				return false
			}
			out = append(out, s)
			i = end
		case 'n':
			out = append(out, "")
			i += len("null")
		default:
			return false
		}
		i = skipSpace(v, i)
		if v[i] == ']' {
			*dst = out
			return true
		}
		i = skipSpace(v, i+1) // past the comma
	}
}

// decodeHeaders decodes an object of strings into dst as encoding/json
// decodes it into a nil map: null is nil, a null value is "", the last of
// repeated keys wins.
func decodeHeaders(v []byte, dst *map[string]string) bool {
	switch v[0] {
	case 'n':
		*dst = nil
		return true
	case '{':
	default:
		return false
	}
	m := map[string]string{}
	ok := true
	scanObject(v, func(key, value []byte) {
		switch {
		case !ok:
		case value[0] == '"':
			var s string
			s, ok = Unquote(value)
			m[string(key)] = s
		case value[0] == 'n':
			m[string(key)] = ""
		default:
			ok = false
		}
	})
	*dst = m
	return ok
}

// encodeRequest encodes r as Encode does with encoding/json, byte for byte.
// ok is false when r's attrs are not valid JSON; encoding/json then says
// why.
func encodeRequest(r *Request) (line []byte, ok bool) {
	b := make([]byte, 0, requestSize(r))
	b = append(b, `{"kind":`...)
	b = AppendString(b, r.Kind)
	b = append(b, `,"url":`...)
	b = AppendString(b, r.URL)
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
	if len(r.Attrs) > 0 {
		if b, ok = appendCompact(append(b, `,"attrs":`...), r.Attrs); !ok {
			return nil, false
		}
	}
	if len(r.Redirects) > 0 {
		b = append(b, `,"redirects":[`...)
		for i, h := range r.Redirects {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendString(append(b, `{"url":`...), h.URL)
			b = strconv.AppendInt(append(b, `,"status":`...), int64(h.Status), 10)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = appendStringField(b, `,"lease":`, r.Lease)
	if len(r.Extra) > 0 {
		b = appendExtra(b, r.Extra)
	}
	b = append(b, '}', '\n')
	if !rawUTF8(r) {
		b = validUTF8(b)
	}
	return b, true
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
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		} else {
			b = append(b, c)
		}
	}
	return b
}

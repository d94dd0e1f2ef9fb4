package record

import (
	"math"
	"strconv"
)

// encodeResponse encodes r as Encode does with encoding/json, byte for
// byte, without reflection: cfetch writes one or two of these per page. ok
// is false where encoding/json fails (a raw member that is not valid JSON,
// a duration that is not a number); it then says why.
func encodeResponse(r *Response) (line []byte, ok bool) {
	b := openRecord(make([]byte, 0, responseSize(r)), r.Kind, r.URL)
	if b, ok = appendRawField(b, `,"request":`, r.Request); !ok {
		return nil, false
	}
	b = appendIntField(b, `,"status":`, int64(r.Status))
	if len(r.Headers) > 0 {
		b = appendHeaders(append(b, `,"headers":`...), r.Headers)
	}
	b = appendStringField(b, `,"body":`, r.Body)
	b = appendStringField(b, `,"body_base64":`, r.BodyBase64)
	b = appendStringField(b, `,"body_path":`, r.BodyPath)
	b = appendStringField(b, `,"encoding":`, r.Encoding)
	b = appendStringField(b, `,"encoding_source":`, r.EncodingSource)
	if len(r.Redirects) > 0 {
		b = appendRedirects(append(b, `,"redirects":`...), r.Redirects)
	}
	b = appendIntField(b, `,"retries":`, int64(r.Retries))
	b = appendIntField(b, `,"size":`, r.Size)
	if b, ok = appendFloatField(b, `,"latency_ms":`, r.LatencyMS); !ok {
		return nil, false
	}
	if b, ok = appendFloatField(b, `,"duration_ms":`, r.DurationMS); !ok {
		return nil, false
	}
	b = appendStringField(b, `,"fetched_at":`, r.FetchedAt)
	if r.Unchanged {
		b = append(b, `,"unchanged":true`...)
	}
	if r.Cached {
		b = append(b, `,"cached":true`...)
	}
	b = appendStringField(b, `,"warc_record_id":`, r.WARCRecordID)
	b = appendStringField(b, `,"error":`, r.Error)
	b = appendStringField(b, `,"error_detail":`, r.ErrorDetail)
	b = appendStringsField(b, `,"warnings":`, r.Warnings)
	if b, ok = appendRawField(b, `,"redirect_request":`, r.RedirectRequest); !ok {
		return nil, false
	}
	return closeRecord(b, r.Extra, rawValid(r)), true
}

// responseSize estimates the length of r encoded, to allocate once.
func responseSize(r *Response) int {
	n := 320 + len(r.Kind) + len(r.URL) + len(r.Request) + len(r.RedirectRequest)
	for _, s := range [...]string{r.Body, r.BodyBase64, r.BodyPath, r.Encoding, r.EncodingSource, r.FetchedAt, r.WARCRecordID, r.Error, r.ErrorDetail} {
		n += len(s)
	}
	for k, v := range r.Headers {
		n += len(k) + len(v) + 6
	}
	for _, h := range r.Redirects {
		n += 32 + len(h.URL)
	}
	for _, w := range r.Warnings {
		n += len(w) + 3
	}
	for k, v := range r.Extra {
		n += len(k) + len(v) + 4
	}
	return n
}

// appendRedirects appends a redirect chain as encoding/json writes it.
func appendRedirects(b []byte, hops []Redirect) []byte {
	b = append(b, '[')
	for i, h := range hops {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(append(b, `{"url":`...), h.URL)
		b = strconv.AppendInt(append(b, `,"status":`...), int64(h.Status), 10)
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendFloatField appends name and f as encoding/json writes a float64,
// unless f is 0 (omitempty); ok is false for what it refuses (NaN,
// infinities).
func appendFloatField(b []byte, name string, f float64) ([]byte, bool) {
	if f == 0 {
		return b, true
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, false
	}
	b = append(b, name...)
	format := byte('f')
	if abs := math.Abs(f); abs < 1e-6 || abs >= 1e21 {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// "1e-07" as "1e-7", as encoding/json writes it.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}

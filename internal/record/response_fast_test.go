package record

import (
	"math"
	"testing"
)

var responseEncodeCases = []string{
	`{"kind":"response","url":"https://a.test/p?q=<1>&r","request":{"kind":"request","url":"https://a.test/p","depth":2, "attrs" : {"x":[1, 2]}},"status":200,"headers":{"content-type":"text/html; charset=utf-8","b":"\u2028","a":"x"},"body":"<html>\n\t\"é\"\u0001</html>","encoding":"utf-8","encoding_source":"header","redirects":[{"url":"https://a.test/r","status":301},{"url":"/s","status":302}],"retries":1,"size":1234,"latency_ms":12.5,"duration_ms":0.000001,"fetched_at":"2026-12-07T01:02:03Z","warc_record_id":"<urn:uuid:1>","warnings":["charset",""],"x-extra":{"a" : 1}}`,
	`{"kind":"response","url":"u","status":304,"unchanged":true,"cached":true,"body_base64":"AAEC","body_path":"/tmp/b"}`,
	`{"kind":"response","url":"u","error":"timeout","error_detail":"read: i/o timeout","latency_ms":1e21,"duration_ms":-3}`,
	`{"kind":"response","url":"u","redirect_request":{"kind":"request","url":"v"},"request":null,"headers":{}}`,
	`{"kind":"response","url":""}`,
}

// FuzzEncodeResponse: Encode of a response, and its fast path where it
// takes the response, write what encoding/json writes, byte for byte. The
// response is decoded from line; a latency, the request member and an
// extra member, when given, replace what it has, to try values Decode
// would not make.
func FuzzEncodeResponse(f *testing.F) {
	for _, c := range responseEncodeCases {
		f.Add([]byte(c), 0.0, []byte(nil), "", []byte(nil))
	}
	f.Add([]byte(`{"url":"u"}`), 1e-7, []byte(" [1,\n {\"a\" : \"b c\"}] "), "a<b>", []byte("{\n\"x\": 1}"))
	f.Add([]byte(`{"url":"u"}`), math.Inf(1), []byte("{"), "", []byte("\n"))
	f.Add([]byte(`{"url":"u"}`), math.NaN(), []byte("\"\xff\""), "\u2028&", []byte(" 1 "))
	f.Add([]byte(`{"url":"u"}`), 123456789012345678901234.0, []byte(nil), "", []byte(nil))
	f.Fuzz(func(t *testing.T, line []byte, latency float64, req []byte, extraKey string, extraValue []byte) {
		var r Response
		if decodeSlow(line, &r) != nil {
			return
		}
		if latency != 0 {
			r.LatencyMS = latency
		}
		if len(req) > 0 {
			r.Request = req
		}
		r.Extra = withExtra(r.Extra, extraKey, extraValue)
		checkFastEncode(t, &r, func() ([]byte, bool) { return encodeResponse(&r) })
	})
}

// TestEncodeResponseFastPath: the cases above take the fast path, and
// write what encoding/json writes.
func TestEncodeResponseFastPath(t *testing.T) {
	for _, c := range responseEncodeCases {
		var r Response
		if err := decodeSlow([]byte(c), &r); err != nil {
			t.Fatal(err)
		}
		want, err := encodeSlow(&r)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := encodeResponse(&r)
		if !ok || string(got) != string(want) {
			t.Errorf("encodeResponse(%s)\n got %q, %v\nwant %q", c, got, ok, want)
		}
	}
}

func BenchmarkEncodeResponse(b *testing.B) {
	var r Response
	if err := decodeSlow([]byte(responseEncodeCases[0]), &r); err != nil {
		b.Fatal(err)
	}
	r.Extra = nil
	for _, c := range []struct {
		name string
		enc  func(any) ([]byte, error)
	}{{"Encode", Encode}, {"encodingJSON", encodeSlow}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.enc(&r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

package cextract

import (
	"reflect"
	"testing"

	"github.com/crawlutils/crawlutils/internal/record"
)

// FuzzDecodeFast: whatever decodeFast takes, the slow path (record.Decode)
// takes too, and both decode the fields cextract uses the same way.
func FuzzDecodeFast(f *testing.F) {
	for _, s := range []string{
		`{"kind":"response","url":"u","body":"a\"b\\c\u00e9\ud83d\ude00 \ud800x","status":200,"headers":{"a":"b"}}`,
		`{"kind":"response","url":"https://a/","request":{"url":"https://a/","attrs":{"n":1e400}},"fetched_at":"t"}`,
		`{"kind":"response","url":null,"status":null,"headers":null,"request":null,"error":"dns"}`,
		`{"kind":"response","URL":"https://a/"}`, `{"kind":"response","size":"x"}`, `{"kind":"response","status":2.5}`,
		`{"kind":"response","headers":{"a":1}}`, `{"kind":"response","request":"x"}`, `{"kind":"response","url":1}`,
		`{"kind":"response","body_base64":"eA==","latency_ms":1.5,"redirects":[{"url":"u","status":301}]}`,
		`{"kind":"response","size":1e3}`, `{"kind":"response","size":9223372036854775808}`, `{"kind":"response","retries":null}`,
		`{"kind":"response","latency_ms":1e400}`, `{"kind":"response","latency_ms":1e-400}`, `{"kind":"response","warnings":[1]}`,
		`{"kind":1,"kind":"response"}`, `{"kind":"response","encoding":true}`, `{"kind":"response","Status":"x"}`,
		`{"\u212aind":"response","url":"a"}`, `{"kind":"response","\u212aind":"response"}`, `{"kind":"response","redirects":{}}`, `{"kind":"response","x":{"y":1}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		env, fields, err := record.ParseFields(line)
		if err != nil || fields == nil {
			return
		}
		resp, req, ok := decodeFast(fields)
		if !ok {
			return
		}
		wresp, wreq, err := decodeResponse(env.Raw, nil)
		if err != nil {
			t.Fatalf("decodeFast took %s, the slow path says %v", line, err)
		}
		// The fields cextract uses; decodeFast leaves the others zero.
		used := func(r *record.Response) record.Response {
			return record.Response{URL: r.URL, Request: r.Request, Status: r.Status, Headers: r.Headers, Body: r.Body,
				BodyBase64: r.BodyBase64, BodyPath: r.BodyPath, FetchedAt: r.FetchedAt, Error: r.Error}
		}
		if !reflect.DeepEqual(used(resp), used(wresp)) || !reflect.DeepEqual(req, wreq) {
			t.Fatalf("%s:\ndecodeFast %+v %+v\nslow path  %+v %+v", line, resp, req, wresp, wreq)
		}
	})
}

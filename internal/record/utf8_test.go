package record

import (
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"
)

// TestParseReplacesInvalidUTF8: a record with invalid UTF-8 in its strings
// (keys included) is passed on with each bad byte replaced by U+FFFD, as
// encoding/json decodes it, so every tool's output is valid JSON (which
// is UTF-8); before, the bytes were copied raw into the output.
func TestParseReplacesInvalidUTF8(t *testing.T) {
	in := "{\"kind\":\"x\",\"v\":\"a\xffb\xe2\x82\",\"k\xfe\":[\"\xc3\"],\"ok\":\"é\\u00e9\"}"
	want := `{"kind":"x","v":"a` + "\uFFFD" + `b` + "\uFFFD\uFFFD" + `","k` + "\uFFFD" + `":["` + "\uFFFD" + `"],"ok":"é\u00e9"}`
	env, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if string(env.Raw) != want {
		t.Fatalf("Parse Raw =\n%q\nwant\n%q", env.Raw, want)
	}
	env2, fields, err := ParseFields([]byte(in))
	if err != nil || string(env2.Raw) != want {
		t.Fatalf("ParseFields Raw = %q, %v; want %q", env2.Raw, err, want)
	}
	for _, f := range fields {
		if !utf8.ValidString(f.Key) || !utf8.Valid(f.Value) {
			t.Errorf("ParseFields field %q: %q is not UTF-8", f.Key, f.Value)
		}
	}
	// What a tool decodes is what encoding/json decodes from the input.
	var got, orig map[string]any
	if err := json.Unmarshal(env.Raw, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(in), &orig); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, orig) {
		t.Fatalf("decoded %v, encoding/json decodes the input as %v", got, orig)
	}
	// A valid line is not copied.
	ok := []byte(`{"kind":"x","v":"é"}`)
	if env, _ := Parse(ok); &env.Raw[0] != &ok[0] {
		t.Error("Parse copied a valid line")
	}
	// A bare URL with invalid UTF-8 is still refused, not mended.
	if _, err := Parse([]byte("https://a.example/\xff")); err == nil {
		t.Error("a bare URL with invalid UTF-8 was accepted")
	}
}

// TestEncodeWritesValidUTF8: a record whose raw JSON members (attrs, data,
// unknown fields) hold invalid UTF-8 — made by code, not read by Parse —
// is still written as UTF-8.
func TestEncodeWritesValidUTF8(t *testing.T) {
	bad := json.RawMessage("{\"a\xff\":\"b\xfe\"}")
	for _, v := range []any{
		&Request{Kind: KindRequest, URL: "u", Attrs: bad},
		&Request{Kind: KindRequest, URL: "u", Extra: map[string]json.RawMessage{"x": bad}},
		&Item{Kind: KindItem, Data: bad},
		&Response{Kind: KindResponse, URL: "u", Request: bad},
		&Ack{Kind: KindAck, Lease: "l", Extra: map[string]json.RawMessage{"x\xff": bad}},
	} {
		out, err := Encode(v)
		if err != nil {
			t.Fatalf("Encode(%T): %v", v, err)
		}
		if !utf8.Valid(out) || !json.Valid(out) {
			t.Errorf("Encode(%T) = %q, not valid UTF-8 JSON", v, out)
		}
	}
}

package record

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestMendLoneSurrogates: an escaped lone surrogate is replaced by \ufffd,
// which encoding/json decodes as it decodes the original, so a record
// passed on is accepted by strict parsers (jq 1.6 refused
// {"s":"\udc00\ud800x"} as cthrottle wrote it); pairs, escaped
// backslashes before a "u" and all other text come through byte for byte.
func TestMendLoneSurrogates(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`"\ud800"`, `"\ufffd"`},
		{`"\udc00"`, `"\ufffd"`},
		{`"\udc00\ud800x"`, `"\ufffd\ufffdx"`},
		{`"\uDBFF"`, `"\ufffd"`},
		{`"a\ud800b\udfffc"`, `"a\ufffdb\ufffdc"`},
		{`"\ud800\ud800\udc00"`, `"\ufffd\ud800\udc00"`},
		{`"\ud800\u0041"`, `"\ufffd\u0041"`},
		{`"\ud800\\udc00"`, `"\ufffd\\udc00"`},
		{`"\\\ud800"`, `"\\\ufffd"`},
		{`"\\\\\udc00\\u"`, `"\\\\\ufffd\\u"`},
		{`{"\ud800":"\ud800","k":["\udc01"]}`, `{"\ufffd":"\ufffd","k":["\ufffd"]}`},
		{"\"\xff\\ud800\"", "\"\uFFFD\\ufffd\""},
		{`"\ud800`, `"\ufffd`}, // not JSON, but mended all the same
		// Unchanged.
		{`"\ud800\udc00"`, ""},
		{`"\uD83D\uDE00\udbff\udfff"`, ""},
		{`"\ud7ff\ue000\u0000\\u"`, ""},
		{`"\\ud800"`, ""},
		{`"\\\\ud800\\\\udc00"`, ""},
		{`"\u00e9 \n\" \\ é"`, ""},
		{`"\ud8"`, ""},
		{`"\u"`, ""},
		{`\`, ""},
		{``, ""},
	} {
		want := c.want
		if want == "" {
			want = c.in
		}
		in := []byte(c.in)
		got := Mend(in)
		if string(got) != want {
			t.Errorf("Mend(%s) = %s, want %s", c.in, got, want)
			continue
		}
		if c.want == "" && len(in) > 0 && &got[0] != &in[0] {
			t.Errorf("Mend(%s) copied a line that needs no mending", c.in)
		}
		if string(in) != c.in {
			t.Errorf("Mend(%s) wrote to its input: %s", c.in, in)
		}
		if validText(in) != (c.want == "") {
			t.Errorf("validText(%s) = %v", c.in, validText(in))
		}
		// What encoding/json decodes is unchanged.
		var orig, mended any
		if json.Unmarshal(in, &orig) == nil {
			if err := json.Unmarshal(got, &mended); err != nil || !reflect.DeepEqual(orig, mended) {
				t.Errorf("Mend(%s) = %s decodes to %q, the input to %q", c.in, got, mended, orig)
			}
		}
	}
}

// TestParseMendsLoneSurrogates: Parse, ParseFields and Encode mend lone
// surrogates as they mend invalid UTF-8, so every tool's output is read
// by jq 1.6 and by Python's json without a lone surrogate in the string.
func TestParseMendsLoneSurrogates(t *testing.T) {
	in := `{"kind":"request","url":"https://a.example/","attrs":{"s":"\udc00\ud800x","p":"\ud83d\ude00","e":"\\ud800"}}`
	want := `{"kind":"request","url":"https://a.example/","attrs":{"s":"\ufffd\ufffdx","p":"\ud83d\ude00","e":"\\ud800"}}`
	env, err := Parse([]byte(in))
	if err != nil || string(env.Raw) != want {
		t.Fatalf("Parse Raw = %s, %v; want %s", env.Raw, err, want)
	}
	env, _, err = ParseFields([]byte(in))
	if err != nil || string(env.Raw) != want {
		t.Fatalf("ParseFields Raw = %s, %v; want %s", env.Raw, err, want)
	}
	var r Request
	if err := Decode(env.Raw, &r); err != nil {
		t.Fatal(err)
	}
	if out, err := Encode(&r); err != nil || !strings.Contains(string(out), `"s":"\ufffd\ufffdx"`) {
		t.Fatalf("Encode = %s, %v", out, err)
	}

	// Raw members made by code, not read by Parse, are mended when written.
	bad := json.RawMessage(`{"\udc00":"\ud800","ok":"\\ud800"}`)
	for _, v := range []any{
		&Request{Kind: KindRequest, URL: "u", Attrs: bad},
		&Request{Kind: KindRequest, URL: "u", Extra: map[string]json.RawMessage{"x": bad}},
		&Item{Kind: KindItem, Data: bad},
		&Response{Kind: KindResponse, URL: "u", Request: bad},
		&Response{Kind: KindResponse, URL: "u", Extra: map[string]json.RawMessage{"x": bad}},
		&Ack{Kind: KindAck, Lease: "l", Extra: map[string]json.RawMessage{"x": bad}},
	} {
		out, err := Encode(v)
		if err != nil {
			t.Fatalf("Encode(%T): %v", v, err)
		}
		if !json.Valid(out) || nextLoneSurrogate(out, 0) >= 0 || !bytes.Contains(out, []byte(`{"\ufffd":"\ufffd","ok":"\\ud800"}`)) {
			t.Errorf("Encode(%T) = %s, want the raw member mended", v, out)
		}
	}
}

// FuzzMend: Mend's output is valid UTF-8 without a lone surrogate escape;
// JSON stays JSON and decodes as the input does; text that needs no
// mending comes through unchanged, and mending changes only the bad bytes
// and escapes (a line of valid UTF-8 keeps its length).
func FuzzMend(f *testing.F) {
	for _, s := range []string{`"\ud800"`, `"\udc00\ud800x"`, `"\ud800\udc00"`, `"\\ud800"`, `"\\\ud800"`, `{"\ud800":["\udfff"]}`,
		`"\ud800\ud800\udc00"`, `"\ud800\\udc00"`, "\"\xff\\udc00\"", `"\u00e9"`, `\`, `"\ud8`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		orig := bytes.Clone(in)
		out := Mend(in)
		if !bytes.Equal(in, orig) {
			t.Fatalf("Mend wrote to its input %q", orig)
		}
		if !utf8.Valid(out) || nextLoneSurrogate(out, 0) >= 0 || !validText(out) {
			t.Fatalf("Mend(%q) = %q, still needs mending", in, out)
		}
		if !bytes.Equal(Mend(out), out) {
			t.Fatalf("Mend(%q) = %q, mended again %q", in, out, Mend(out))
		}
		if validText(in) && !bytes.Equal(out, in) {
			t.Fatalf("Mend(%q) = %q, changed valid text", in, out)
		}
		if utf8.Valid(in) {
			if len(out) != len(in) {
				t.Fatalf("Mend(%q) = %q, changed its length", in, out)
			}
			for i := range in {
				if in[i] != out[i] && !insideMend(out, i) {
					t.Fatalf("Mend(%q) = %q, changed byte %d outside an escape", in, out, i)
				}
			}
		}
		if json.Valid(in) != json.Valid(out) {
			t.Fatalf("Mend(%q) = %q: json.Valid %v, was %v", in, out, json.Valid(out), json.Valid(in))
		}
		var a, b any
		if json.Unmarshal(in, &a) == nil {
			if err := json.Unmarshal(out, &b); err != nil || !reflect.DeepEqual(a, b) {
				t.Fatalf("Mend(%q) = %q decodes to %q (%v), the input to %q", in, out, b, err, a)
			}
		}
	})
}

// insideMend reports whether byte i of out is one of a \ufffd's six.
func insideMend(out []byte, i int) bool {
	for s := max(0, i-5); s <= i; s++ {
		if bytes.HasPrefix(out[s:], []byte(`\ufffd`)) {
			return true
		}
	}
	return false
}

package record

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"
)

// jsonMembers is what encoding/json reads from the object b: its members in
// order, keys decoded, values as written. ok is false when b is not a valid
// JSON object.
func jsonMembers(b []byte) (fields []Field, ok bool) {
	if !json.Valid(b) {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		fields = append(fields, Field{Key: tok.(string), Value: v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	return fields, true
}

func TestScanObject(t *testing.T) {
	deep := func(n int) string { return `{"a":` + strings.Repeat("[", n-1) + strings.Repeat("]", n-1) + `}` }
	for _, s := range []string{
		`{}`, ` {} `, `{"a":1}`, `{"a":1,"a":2}`, ` {"k" : [1, {"b":null}] , "c":-0.5e+3}` + "\n",
		`{"\u006bind":"item","\ud83d\ude00":"\ud800x","\u00e9\"":"\/"}`, "{\"\xff\":1}",
		`{"n":[0,-0,1.5,1e9,1E-2,-12.0e+3]}`, `{"t":true,"f":false,"z":null,"s":""}`,
		deep(maxDepth), deep(maxDepth + 1), deep(maxDepth - 1),
		``, ` `, `[]`, `"a"`, `null`, `{`, `}`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{,}`, `{"a":1}x`, `{"a":1}{}`,
		`{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":-}`, `{"a":1e}`, `{"a":+1}`, `{"a":tru}`, `{"a":nul}`,
		`{"a":"\x"}`, `{"a":"\u12"}`, "{\"a\":\"\x01\"}", "{\"a\":\"\t\"}", `{"a":"x}`, `{a:1}`, `{'a':1}`,
		"\v{}", "{}\f", `{"a":[1,]}`, `{"a":[,1]}`, `{"a":{"b"}}`, `{"a":{"b":1,}}`, `{"a":[}`,
	} {
		got, ok := ScanObject([]byte(s))
		want, wok := jsonMembers([]byte(s))
		if ok != wok || !reflect.DeepEqual(got, want) {
			t.Errorf("ScanObject(%.60q) = %v, %v; encoding/json: %v, %v", s, got, ok, want, wok)
		}
	}
}

// FuzzScanObject: ScanObject accepts exactly the JSON objects encoding/json
// accepts, and returns the members encoding/json reads, in order.
func FuzzScanObject(f *testing.F) {
	for _, s := range []string{
		`{"kind":"response","url":"u","body":"a\"b\\c\u00e9\ud83d\ude00 \ud800x","status":200}`,
		`{"kind":null}`, `{"kind":1}`, `{"kind":"x","kind":"y"}`, ` {"a":[1,{"b":null}],"c":-0.5e+3} `, `{"a":01}`,
		`{"a":"\u0000"}`, "{\"a\":\"\x01\"}", `{"a":tru}`, `https://a/`, `[1]`, ``, `{"a":1,}`, "{\"k\":\"\xff\"}",
		`{"":""}`, `{"a":[]}`, `{"a":{}}`, `{"\u006bind":"item"}`, `{"KIND":"item"}`, "\v{}",
		`{"a":[[[[{"b":[1e400,-0.0E-0]}]]]]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := ScanObject(b)
		want, wok := jsonMembers(b)
		if ok != wok {
			t.Fatalf("ScanObject(%q) ok = %v, encoding/json %v", b, ok, wok)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("ScanObject(%q) = %v, encoding/json %v", b, got, want)
		}
	})
}

// FuzzParseFields: ParseFields reads every line as Parse does — the same
// verdict, kind and record — and its fields are ScanObject's.
func FuzzParseFields(f *testing.F) {
	for _, s := range []string{
		`{"kind":"response","url":"u","body":"a\"b\\c\u00e9\ud83d\ude00 \ud800x","status":200}`,
		`{"kind":null}`, `{"kind":1}`, `{"kind":"x","kind":"y"}`, `{"kind":1,"kind":"y"}`, `{"kind":"y","kind":1}`,
		` {"a":[1,{"b":null}],"c":-0.5e+3} `, `{"a":01}`, `{"a":"\u0000"}`, "{\"a\":\"\x01\"}", `{"a":tru}`,
		`https://a/`, `[1]`, ``, `{"a":1,}`, "{\"k\":\"\xff\"}", `{"":""}`, `{"a":[]}`, `{"a":{}}`, `{}`,
		`{"\u006bind":"item"}`, `{"Kind":"item"}`, `{"\u212aind":"ack"}`, `{"kind":"\ud800"}`, "\v{\"kind\":\"ack\"}\u00a0",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		env, fields, err := ParseFields(line)
		want, werr := Parse(line)
		if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
			t.Fatalf("ParseFields(%q) error %v, Parse %v", line, err, werr)
		}
		if !reflect.DeepEqual(env, want) {
			t.Fatalf("ParseFields(%q) = %+v, Parse %+v", line, env, want)
		}
		if err != nil || env.Bare {
			if fields != nil {
				t.Fatalf("ParseFields(%q): fields %v with %v", line, fields, err)
			}
			return
		}
		wf, ok := ScanObject(env.Raw)
		if !ok || !reflect.DeepEqual(fields, wf) {
			t.Fatalf("ParseFields(%q) fields %v, ScanObject %v, %v", line, fields, wf, ok)
		}
	})
}

// FuzzUnquote: Unquote decodes as encoding/json does, and scanString
// accepts only strings encoding/json accepts.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{"", "a", "é", "\xff", "\u2028", "<&>", "\x00\x1f\"\\", "😀",
		`\ud83d\ude00`, `\ud800`, `\ud800\u0041`, `\udc00\ud800`, `\u00e9\/\b\f\n\r\t`, `\x`, `\u12`, "a\xe2\x82",
		"<p class=\\\"x\\\">\\u00e9\\ud83d\\ude00\\ud800x</p>\xff\xfe", "12345678\\", "1234567\"89", "東京\\u6771\x01"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s)
		want := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
		var back string
		if err := json.Unmarshal(want, &back); err != nil {
			t.Fatal(err)
		}
		if got, ok := Unquote(want); !ok || got != back {
			t.Fatalf("Unquote(%s) = %q, %v; want %q", want, got, ok, back)
		}
		// Raw input as a JSON string, escapes and all.
		raw := []byte(`"` + s + `"`)
		accepted := scanString(raw, 0) == len(raw)
		err := json.Unmarshal(raw, &back)
		if accepted != (err == nil) {
			t.Fatalf("scanString(%q) accepted %v, encoding/json: %v", raw, accepted, err)
		}
		if !accepted {
			return
		}
		if got, ok := Unquote(raw); !ok || got != back {
			t.Fatalf("Unquote(%q) = %q, %v; want %q", raw, got, ok, back)
		}
	})
}

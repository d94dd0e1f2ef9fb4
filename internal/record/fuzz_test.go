package record

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzParse: Parse never panics, what it accepts is a JSON object, and its
// one-pass reading of objects gives what encoding/json gives (parse): the
// same verdict, error, kind and record.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"kind":"request","url":"https://a/"}`, "https://a/b", `[1]`, `{"kind":1}`, "", "a.b", `{"a":"\u00e9"}`,
		`{"Kind":"item"}`, `{"\u212aind":"item"}`, `{"Kind":5,"kind":"item"}`, `{"kind":"item","KIND":[1]}`, `{"kind":"x","kind":null}`, `{"kind":1,"kind":"ack"}`, `{"kind":"\ud800"}`,
		`{"kind":"item",}`, "\v{\"kind\":\"ack\"}", `{"a":[[[]]],"kind":"response"}`,
		"{\"kind\":\"x\",\"v\":\"a\xffb\xe2\x82\",\"k\xfe\":1}", "{\"kind\":\"\xff\"}", "https://a/\xff", "{\"a\":1}\xff"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		env, err := Parse(line)
		want, werr := parse(bytes.TrimSpace(line))
		if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
			t.Fatalf("Parse(%q) error %v, encoding/json %v", line, err, werr)
		}
		if !reflect.DeepEqual(env, want) {
			t.Fatalf("Parse(%q) = %+v, encoding/json %+v", line, env, want)
		}
		if err != nil {
			return
		}
		var m map[string]any
		if json.Unmarshal(env.Raw, &m) != nil {
			t.Fatalf("accepted %q but Raw %q is not an object", line, env.Raw)
		}
		if !validText(env.Raw) {
			t.Fatalf("accepted %q but Raw %q is not UTF-8 without lone surrogates", line, env.Raw)
		}
		// Mended, it decodes as the line does.
		var orig map[string]any
		if !env.Bare && (json.Unmarshal(bytes.TrimSpace(line), &orig) != nil || !reflect.DeepEqual(m, orig)) {
			t.Fatalf("Raw %q decodes to %v, the line %q to %v", env.Raw, m, line, orig)
		}
	})
}

// FuzzDecodeEncode: a decoded request re-encodes to the same JSON value,
// unknown fields included.
func FuzzDecodeEncode(f *testing.F) {
	for _, s := range []string{
		`{"kind":"request","url":"https://a/","x":{"y":[1,"}"]},"z":"\"q"}`,
		`{"kind":"request","url":"u","attrs":{"n":1e400}}`,
		`{"url":"u","priority":-3,"headers":{"A":"b"}}`,
		"{\"url\":\"u\",\"attrs\":{\"\xff\":\"\xc3\"},\"x\xfe\":[\"\xe2\x82\"]}",
		`{"url":"u","Kind":{"a":1},"KIND":"item"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var r Request
		if Decode(raw, &r) != nil {
			return
		}
		out, err := Encode(&r)
		if err != nil {
			t.Fatalf("Encode: %v", err)
		}
		if !validText(out) {
			t.Fatalf("Encode wrote %q, not UTF-8 without lone surrogates", out)
		}
		var again Request
		if err := Decode(out, &again); err != nil {
			t.Fatalf("re-decode %s: %v", out, err)
		}
		a, _ := Encode(&again)
		if string(a) != string(out) {
			t.Fatalf("not stable:\n%s\n%s", out, a)
		}
	})
}

// FuzzFields: Fields agrees with encoding/json on the set of keys.
func FuzzFields(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":[{"c":"}"}]}`, `{"a":1,"a":2}`, `{}`, `{"\u0041":true}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		fs, err := Fields(raw)
		var m map[string]json.RawMessage
		jerr := json.Unmarshal(raw, &m)
		if err != nil || jerr != nil || m == nil {
			return
		}
		got := map[string]string{}
		for _, fld := range fs {
			got[fld.Key] = string(fld.Value)
		}
		want := map[string]string{}
		for k, v := range m {
			want[k] = string(v)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Fields(%s) = %v, encoding/json says %v", raw, got, want)
		}
	})
}

// FuzzAppendString: AppendString writes what encoding/json
// (SetEscapeHTML(false)) writes, byte for byte.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a", "é", "\xff", "\u2028", "<&>", "\x00\x1f\"\\\b\f", "😀"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s)
		want := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
		if got := AppendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("AppendString(%q) = %s, want %s", s, got, want)
		}
	})
}

package record

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// allFields is a request with every field set.
const allFields = `{"kind":"request","url":"https://a.example/p?q=1&r=<2>","method":"POST",` +
	`"headers":{"Content-Type":"text/plain","X-A":"1"},"body":"a=1","priority":-3,"depth":2,` +
	`"referer":"https://a.example/","dont_filter":true,"retries":1,"crawlid":"c1","appid":"app",` +
	`"spiderid":"s","maxdepth":5,"allowed_domains":["a.example","b.example"],"allow_regex":["^/p"],` +
	`"deny_regex":["\\.pdf$"],"deny_extensions":["zip"],"expires":1767225600,"useragent":"bot/1",` +
	`"attrs":{"k":[1,2.5e3,"x"]},"lease":"L1","zz":1,"aa":{"b":null}}`

// decodeCases are lines for Decode; fast says whether the fast path takes
// them (else encoding/json decides).
var decodeCases = []struct {
	name, line string
	fast       bool
}{
	{"follow-up", benchFollowUp, true},
	{"popped", benchRequest, true},
	{"all fields and extras", allFields, true},
	{"white space everywhere", " \t{ \"kind\" : \"request\" ,\n\"url\":\"u\", \"allowed_domains\" : [ \"a\" , null ] ,\"headers\": { \"a\" : \"b\" } , \"attrs\" : { \"x\" : [ 1 ] } }\r\n", true},
	{"nulls", `{"kind":null,"url":null,"method":null,"headers":null,"body":null,"priority":null,"depth":null,"referer":null,` +
		`"dont_filter":null,"retries":null,"crawlid":null,"appid":null,"spiderid":null,"maxdepth":null,"allowed_domains":null,` +
		`"allow_regex":null,"deny_regex":null,"deny_extensions":null,"expires":null,"useragent":null,"attrs":null,"lease":null}`, true},
	{"empty array and object", `{"url":"u","allowed_domains":[],"deny_regex":[],"headers":{}}`, true},
	{"empty deny_extensions is kept", `{"url":"u","deny_extensions":[],"deny_regex":[]}`, true},
	{"null elements and values", `{"url":"u","allow_regex":[null,"a",null],"headers":{"a":null,"b":"c"}}`, true},
	{"repeated header keys", `{"url":"u","headers":{"a":"1","b":"2","a":"3"}}`, true},
	{"attrs of every kind", `{"url":"u","attrs":"s"}`, true},
	{"attrs number", `{"url":"u","attrs":1e400}`, true},
	{"attrs false", `{"url":"u","attrs":false}`, true},
	{"escapes", `{"kind":"re\u0071uest","url":"https:\/\/a\/\"\\\b\f\n\r\t\u00e9\ud83d\ude00","body":"\u2028"}`, true},
	{"invalid UTF-8 and lone surrogates", "{\"url\":\"a\xffb\",\"body\":\"\\ud800x\\udc00\",\"headers\":{\"k\xfe\":\"v\\udfff\"},\"allowed_domains\":[\"\xc3\"]}", true},
	{"escaped key", `{"\u0075rl":"u","d\u0065pth":1}`, true},
	{"minus zero", `{"url":"u","priority":-0,"expires":-0}`, true},
	{"largest fast integers", `{"url":"u","expires":999999999999999999,"priority":-999999999999999999}`, true},
	{"false", `{"url":"u","dont_filter":false}`, true},
	{"unknown keys, last wins", `{"url":"u","x":1,"y":[{"z":"}"}],"x":"two"}`, true},
	{"unknown key with escapes", `{"url":"u","\u00e9\n":1,"a<b>&c":2}`, true},
	{"empty object", `{}`, true},
	{"kind other than request", `{"kind":"item","url":"u"}`, true},
	{"unknown key that folds to nothing", `{"url":"u","Foo":1,"é":2}`, true},
	{"the Extra field is not a key", `{"url":"u","Extra":{"a":1},"extra":2,"-":3}`, true},
	{"Kind is not the kind", `{"Kind":"Gadget","url":"u"}`, true},
	{"kelvin sign", `{"\u212aind":"request","url":"u"}`, true},
	{"KIND of another type beside kind", `{"kind":"request","KIND":5,"url":"u","kInD":{"a":[1]}}`, true},

	{"key in upper case", `{"URL":"u"}`, false},
	{"key in mixed case", `{"url":"u","Depth":2}`, false},
	{"long s folds to s", `{"url":"u","crawlid":"a","\u017fpiderid":"b"}`, false},
	{"repeated url", `{"url":"a","url":"b"}`, false},
	{"repeated url with null", `{"url":"a","url":null}`, false},
	{"repeated headers merge", `{"url":"u","headers":{"a":"1"},"headers":{"b":"2"}}`, false},
	{"repeated list", `{"url":"u","allowed_domains":["a","b"],"allowed_domains":[null]}`, false},
	{"repeated attrs", `{"url":"u","attrs":1,"attrs":2}`, false},
	{"string for int", `{"url":"u","depth":"3"}`, false},
	{"fraction", `{"url":"u","depth":1.0}`, false},
	{"exponent", `{"url":"u","depth":1e2}`, false},
	{"19 digits", `{"url":"u","expires":1000000000000000000}`, false},
	{"int overflow", `{"url":"u","priority":99999999999999999999}`, false},
	{"int64 max", `{"url":"u","expires":9223372036854775807}`, false},
	{"string for bool", `{"url":"u","dont_filter":"true"}`, false},
	{"number for string", `{"url":5}`, false},
	{"bool for string", `{"kind":true,"url":"u"}`, false},
	{"object for string", `{"url":{"a":1}}`, false},
	{"number in headers", `{"url":"u","headers":{"a":1}}`, false},
	{"array for headers", `{"url":"u","headers":["a"]}`, false},
	{"string for list", `{"url":"u","allowed_domains":"a"}`, false},
	{"number in list", `{"url":"u","allowed_domains":["a",1]}`, false},
	{"nested list", `{"url":"u","deny_regex":[["a"]]}`, false},
	{"two errors", `{"url":1,"depth":"x"}`, false},
	{"type error then syntax error", `{"url":1,`, false},
	{"invalid JSON", `{"url":"u",}`, false},
	{"trailing garbage", `{"url":"u"}x`, false},
	{"two objects", `{"url":"u"}{}`, false},
	{"top-level null", `null`, false},
	{"top-level array", `[{"url":"u"}]`, false},
	{"top-level string", `"u"`, false},
	{"empty", ``, false},
	{"control character", "{\"url\":\"a\x01\"}", false},
	{"bad escape", `{"url":"\x"}`, false},
	{"vertical tab", "\v{\"url\":\"u\"}", false},
}

func TestDecodeRequestFast(t *testing.T) {
	for _, c := range decodeCases {
		t.Run(c.name, func(t *testing.T) {
			var fast, slow Request
			err := Decode([]byte(c.line), &fast)
			serr := decodeSlow([]byte(c.line), &slow)
			if (err == nil) != (serr == nil) || err != nil && err.Error() != serr.Error() {
				t.Fatalf("Decode error %v, encoding/json %v", err, serr)
			}
			if !reflect.DeepEqual(fast, slow) {
				t.Fatalf("Decode\n got %#v\nwant %#v", fast, slow)
			}
			var direct Request
			if ok := decodeRequest([]byte(c.line), &direct); ok != c.fast {
				t.Fatalf("fast path took it: %v, want %v (encoding/json error: %v)", ok, c.fast, serr)
			}
		})
	}
}

// TestDecodeRequestIntoNonZero: encoding/json decodes into what is there,
// so a request that is not zero goes the slow way, with the same result.
func TestDecodeRequestIntoNonZero(t *testing.T) {
	line := []byte(`{"url":"u","headers":{"b":"2"},"allowed_domains":[null],"x":1}`)
	start := func() Request {
		return Request{Method: "GET", Headers: map[string]string{"a": "1"}, AllowedDomains: []string{"keep"},
			Extra: map[string]json.RawMessage{"old": json.RawMessage("1")}}
	}
	fast, slow := start(), start()
	if err := Decode(line, &fast); err != nil {
		t.Fatal(err)
	}
	if err := decodeSlow(line, &slow); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fast, slow) || fast.Method != "GET" || fast.Headers["a"] != "1" || fast.AllowedDomains[0] != "keep" {
		t.Fatalf("got %#v\nwant %#v", fast, slow)
	}

	// Extra alone does not matter: Decode replaces it on success and leaves
	// it on an error, as with encoding/json.
	withExtra := func() Request { return Request{Extra: map[string]json.RawMessage{"old": json.RawMessage("1")}} }
	for _, line := range []string{`{"url":"u"}`, `{"url":"u","new":2}`, `{"url":1}`} {
		fast, slow := withExtra(), withExtra()
		err := Decode([]byte(line), &fast)
		serr := decodeSlow([]byte(line), &slow)
		if (err == nil) != (serr == nil) || !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%s: got %#v, %v\nwant %#v, %v", line, fast, err, slow, serr)
		}
	}
}

// TestZeroRequestCoversEveryField: a field added to Request must be added
// to zeroRequest (and to the fast paths, which the other tests check).
func TestZeroRequestCoversEveryField(t *testing.T) {
	typ := reflect.TypeFor[Request]()
	for i := range typ.NumField() {
		if typ.Field(i).Name == "Extra" {
			continue
		}
		var r Request
		setField(reflect.ValueOf(&r).Elem().Field(i))
		if zeroRequest(&r) {
			t.Errorf("zeroRequest ignores %s", typ.Field(i).Name)
		}
	}
}

// setField sets f to a value that is not zero and that encodes with
// escapes.
func setField(f reflect.Value) {
	switch f.Interface().(type) {
	case string:
		f.SetString("<é&\u2028\"\x00>\xff")
	case int, int64:
		f.SetInt(-42)
	case bool:
		f.SetBool(true)
	case []string:
		f.Set(reflect.ValueOf([]string{"a<", "", "b\n"}))
	case map[string]string:
		f.Set(reflect.ValueOf(map[string]string{"z": "1", "a&": "2", "é": "", "A": "\t"}))
	case json.RawMessage:
		f.Set(reflect.ValueOf(json.RawMessage(" {\"a <b>\" :\n [1, \"\\\" x\" ]} ")))
	case []Redirect:
		f.Set(reflect.ValueOf([]Redirect{{URL: "http://a/<b>", Status: 301}}))
	default:
		panic("setField: no value for " + f.Type().String())
	}
}

func TestEncodeRequestEveryField(t *testing.T) {
	typ := reflect.TypeFor[Request]()
	var all Request
	for i := range typ.NumField() {
		if typ.Field(i).Name == "Extra" {
			continue
		}
		var r Request
		setField(reflect.ValueOf(&r).Elem().Field(i))
		setField(reflect.ValueOf(&all).Elem().Field(i))
		checkEncode(t, typ.Field(i).Name, &r, true)
	}
	checkEncode(t, "all", &all, true)
}

func TestEncodeRequestFast(t *testing.T) {
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	tests := []struct {
		name string
		r    Request
		fast bool
	}{
		{"zero", Request{}, true},
		{"html stays", Request{Kind: "request", URL: "https://a/?b=1&c=<d>"}, true},
		{"escapes", Request{URL: "a\u2028b\u2029\x7f\x1f\ufffd\xff\xc3(", Body: "\"\\/\b\f\n\r\t"}, true},
		{"empty lists and map", Request{URL: "u", AllowedDomains: []string{}, Headers: map[string]string{}}, true},
		{"many headers", Request{URL: "u", Headers: func() map[string]string {
			m := map[string]string{}
			for _, k := range strings.Fields("q w e r t y u i o p a s d f g h j k l z x c v b n m Q W E R") {
				m[k] = k + k
			}
			return m
		}()}, true},
		{"extreme numbers", Request{Priority: -1 << 63, Depth: 1<<63 - 1, Expires: -1}, true},
		{"attrs null", Request{URL: "u", Attrs: raw("null")}, true},
		{"attrs white space", Request{URL: "u", Attrs: raw(" \r\n\t[ 1 , { \"a b\" : \"c\\\\\" } ]\n")}, true},
		{"attrs html and line separators", Request{URL: "u", Attrs: raw("\"<&>\u2028\"")}, true},
		{"attrs invalid UTF-8", Request{URL: "u", Attrs: raw("\"\xff\"")}, true},
		{"attrs deep", Request{URL: "u", Attrs: raw(strings.Repeat("[", 10000) + strings.Repeat("]", 10000))}, true},
		{"extra", Request{URL: "u", Extra: map[string]json.RawMessage{"b": raw("1"), "a<&>": raw(" {\n\"x\" : 1}"),
			"": raw(`""`), "c": raw("[1, 2]"), "\xff\u2028": raw("null")}}, true},
		{"extra invalid", Request{URL: "u", Extra: map[string]json.RawMessage{"a": raw("{\n"), "b": raw(""), "c": raw("nope")}}, true},
		{"extra names a field", Request{URL: "u", Extra: map[string]json.RawMessage{"url": raw(`"v"`)}}, true},

		{"attrs invalid", Request{URL: "u", Attrs: raw("{")}, false},
		{"attrs two values", Request{URL: "u", Attrs: raw("1 2")}, false},
		{"attrs white space only", Request{URL: "u", Attrs: raw(" ")}, false},
		{"attrs too deep", Request{URL: "u", Attrs: raw(strings.Repeat("[", 10001) + strings.Repeat("]", 10001))}, false},
	}
	for _, tt := range tests {
		checkEncode(t, tt.name, &tt.r, tt.fast)
	}
	// Not a *Request: not the fast path, still the same.
	r := Request{URL: "u"}
	if a, b := mustEncode(t, r), mustEncode(t, &r); string(a) != string(b) {
		t.Fatalf("Request %s, *Request %s", a, b)
	}
}

func mustEncode(t *testing.T, v any) []byte {
	t.Helper()
	b, err := Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkEncode checks that Encode and the fast path write what encoding/json
// writes, and that the fast path takes r when fast says so.
func checkEncode(t *testing.T, name string, r *Request, fast bool) {
	t.Helper()
	want, werr := encodeSlow(r)
	got, err := Encode(r)
	if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
		t.Errorf("%s: Encode error %v, encoding/json %v", name, err, werr)
	}
	if string(got) != string(want) {
		t.Errorf("%s: Encode\n got %q\nwant %q", name, got, want)
	}
	direct, ok := encodeRequest(r)
	if ok != fast {
		t.Errorf("%s: fast path took it: %v, want %v (encoding/json error %v)", name, ok, fast, werr)
	}
	if ok && string(direct) != string(want) {
		t.Errorf("%s: encodeRequest\n got %q\nwant %q", name, direct, want)
	}
}

// FuzzDecodeRequest: Decode of a request, and its fast path where it takes
// the line, give what encoding/json gives: the same error or the same
// request.
func FuzzDecodeRequest(f *testing.F) {
	for _, c := range decodeCases {
		f.Add([]byte(c.line))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var got, want Request
		err := Decode(raw, &got)
		werr := decodeSlow(raw, &want)
		if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
			t.Fatalf("Decode(%q) error %v, encoding/json %v", raw, err, werr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Decode(%q)\n got %#v\nwant %#v", raw, got, want)
		}
		var direct Request
		if decodeRequest(raw, &direct) {
			// The fast path decodes; Decode then checks the numbers.
			derr := checkRequestNumbers(&direct)
			if (derr == nil) != (werr == nil) || derr != nil && derr.Error() != werr.Error() || !reflect.DeepEqual(direct, want) {
				t.Fatalf("decodeRequest(%q)\n got %#v (numbers: %v)\nwant %#v (error %v)", raw, direct, derr, want, werr)
			}
		}
	})
}

// FuzzEncodeRequest: Encode of a request, and its fast path where it takes
// the request, write what encoding/json writes, byte for byte. The request
// is decoded from line; attrs and an extra member, when given, replace
// what it has, to try values Decode would not make.
func FuzzEncodeRequest(f *testing.F) {
	for _, c := range decodeCases {
		f.Add([]byte(c.line), []byte(nil), "", []byte(nil))
	}
	f.Add([]byte(`{"url":"u"}`), []byte(" [1,\n {\"a\" : \"b c\"}] "), "a<b>", []byte("{\n\"x\": 1}"))
	f.Add([]byte(`{"url":"u"}`), []byte("{"), "", []byte("\n"))
	f.Add([]byte(`{"url":"u"}`), []byte(`"\u2028<"`), "\u2028&", []byte(" 1 "))
	f.Fuzz(func(t *testing.T, line, attrs []byte, extraKey string, extraValue []byte) {
		var r Request
		if decodeSlow(line, &r) != nil {
			return
		}
		if len(attrs) > 0 {
			r.Attrs = attrs
		}
		r.Extra = withExtra(r.Extra, extraKey, extraValue)
		checkFastEncode(t, &r, func() ([]byte, bool) { return encodeRequest(&r) })
	})
}

// withExtra sets extra[key] = value, unless both are empty.
func withExtra(extra map[string]json.RawMessage, key string, value []byte) map[string]json.RawMessage {
	if key == "" && len(value) == 0 {
		return extra
	}
	if extra == nil {
		extra = map[string]json.RawMessage{}
	}
	extra[key] = value
	return extra
}

// checkFastEncode fails t unless Encode(v) and direct, the fast path, write
// what encoding/json writes, byte for byte (or fail as it does), and the
// line is UTF-8.
func checkFastEncode(t *testing.T, v any, direct func() ([]byte, bool)) {
	t.Helper()
	want, werr := encodeSlow(v)
	got, err := Encode(v)
	if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
		t.Fatalf("Encode(%#v) error %v, encoding/json %v", v, err, werr)
	}
	if string(got) != string(want) {
		t.Fatalf("Encode(%#v)\n got %q\nwant %q", v, got, want)
	}
	line, ok := direct()
	if ok && string(line) != string(want) {
		t.Fatalf("fast path (%#v)\n got %q\nwant %q", v, line, want)
	}
	if !ok && werr == nil {
		t.Fatalf("fast path (%#v) left to encoding/json, which took it: %q", v, want)
	}
	if err == nil && !validText(got) {
		t.Fatalf("Encode(%#v) = %q, not UTF-8 without lone surrogates", v, got)
	}
}

// An empty deny_extensions is kept as [] (it means "deny none"), unlike
// the other lists: nil is still left out.
func TestEmptyDenyExtensionsIsKept(t *testing.T) {
	var r Request
	if err := Decode([]byte(`{"kind":"request","url":"u","deny_extensions":[],"deny_regex":[]}`), &r); err != nil {
		t.Fatal(err)
	}
	if r.DenyExtensions == nil || len(r.DenyExtensions) != 0 {
		t.Fatalf("DenyExtensions = %#v, want an empty list", r.DenyExtensions)
	}
	want := `{"kind":"request","url":"u","deny_extensions":[]}` + "\n"
	for name, enc := range map[string]func(any) ([]byte, error){"Encode": Encode, "encodeSlow": encodeSlow} {
		got, err := enc(&r)
		if err != nil || string(got) != want {
			t.Errorf("%s = %s, %v; want %s", name, got, err, want)
		}
	}
	if got, _ := Encode(&Request{Kind: KindRequest, URL: "u"}); strings.Contains(string(got), "deny_extensions") {
		t.Errorf("a request without deny_extensions encodes as %s", got)
	}
}

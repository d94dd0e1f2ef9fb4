package record

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, line string
		kind       string
		bare       bool
		wantErr    string
	}{
		{"request", `{"kind":"request","url":"https://a.example/"}`, "request", false, ""},
		{"no kind", `{"title":"x"}`, "", false, ""},
		{"null kind", `{"kind":null}`, "", false, ""},
		{"spaces and CR", "  {\"kind\":\"ack\",\"lease\":\"l1\"}\r", "ack", false, ""},
		{"bare https", "https://example.com/a?b=1&c=2", "request", true, ""},
		{"bare ftp is syntactically a URL", "ftp://example.com/f", "request", true, ""},
		{"empty", "", "", false, "empty line"},
		{"blank", "  \t ", "", false, "empty line"},
		{"malformed", `{"kind":"request",`, "", false, "invalid JSON"},
		{"array", `[{"url":"x"}]`, "", false, "got an array"},
		{"bad array", `[1,`, "", false, "invalid JSON"},
		{"string", `"https://x"`, "", false, "got a string"},
		{"number", `42`, "", false, "got a number"},
		{"true", `true`, "", false, "got true"},
		{"kind not string", `{"kind":7}`, "", false, `field "kind"`},
		{"last kind wins", `{"kind":7,"kind":"item"}`, "item", false, ""},
		{"KIND is not the kind", `{"KIND":"item"}`, "", false, ""},
		{"nor is the Kelvin sign's", `{"\u212aind":"item","x":1}`, "", false, ""},
		{"Kind of any type is data", `{"Kind":5}`, "", false, ""},
		{"kind beside Kind", `{"Kind":"Gadget","kind":"item","KIND":7}`, "item", false, ""},
		{"escaped kind", `{"kind":"it\u0065m"}`, "item", false, ""},
		{"vertical tab around", "\v{\"kind\":\"ack\"}\v", "ack", false, ""},
		{"words", `hello world`, "", false, "not a JSON object or a URL"},
		{"no scheme", `example.com/page`, "", false, "did you mean https://example.com/page"},
		{"relative", `/page`, "", false, "not a JSON object or a URL"},
		{"a byte order mark before an object", "\ufeff{\"a\":1}", "", false, "a byte order mark (U+FEFF) before the record"},
		{"a byte order mark before a URL", "\ufeffhttps://a.example/", "", false, "a byte order mark (U+FEFF) before the record"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, err := Parse([]byte(tt.line))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Parse(%q) error = %v, want containing %q", tt.line, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.line, err)
			}
			if env.Kind != tt.kind || env.Bare != tt.bare {
				t.Fatalf("Parse(%q) = kind %q bare %v, want %q %v", tt.line, env.Kind, env.Bare, tt.kind, tt.bare)
			}
			if !json.Valid(env.Raw) {
				t.Fatalf("Raw is not JSON: %s", env.Raw)
			}
		})
	}
}

func TestBareURLBecomesRequest(t *testing.T) {
	env, err := Parse([]byte("https://example.com/?q=<a>&b"))
	if err == nil {
		t.Fatalf("a URL with < should be refused, got %s", env.Raw)
	}
	env, err = Parse([]byte("https://example.com/?q=a&b=2"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(env.Raw), `{"kind":"request","url":"https://example.com/?q=a&b=2"}`; got != want {
		t.Fatalf("Raw = %s, want %s", got, want)
	}
	// A '%' that starts no escape is a URL all the same (browsers, curl
	// and wget fetch it); the tools that send it write it "%25".
	env, err = Parse([]byte("https://example.com/sale-50%-off"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(env.Raw), `{"kind":"request","url":"https://example.com/sale-50%-off"}`; got != want {
		t.Fatalf("Raw = %s, want %s", got, want)
	}
}

func TestDecodeKeepsUnknownFields(t *testing.T) {
	in := `{"kind":"request","url":"https://a/?x=1&y=<2>","priority":5,"attrs":{"n":12345678901234567890,"f":1.10},"zeta":[1, 2],"alpha":{"k":"v"},"weird\"key":null}`
	var r Request
	if err := Decode([]byte(in), &r); err != nil {
		t.Fatal(err)
	}
	if r.URL != "https://a/?x=1&y=<2>" || r.Priority != 5 {
		t.Fatalf("decoded %+v", r)
	}
	if len(r.Extra) != 3 {
		t.Fatalf("Extra = %v, want zeta, alpha, weird\"key", r.Extra)
	}
	out, err := Encode(&r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"request","url":"https://a/?x=1&y=<2>","priority":5,"attrs":{"n":12345678901234567890,"f":1.10},"alpha":{"k":"v"},"weird\"key":null,"zeta":[1, 2]}` + "\n"
	if string(out) != want {
		t.Fatalf("Encode =\n%s\nwant\n%s", out, want)
	}
}

func TestDecodeErrorsNameTheField(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"kind":"request","url":"u","priority":"high"}`, `field "priority": expected an integer, got string`},
		{`{"kind":"request","url":"u","headers":{"a":1}}`, `field "headers`},
		{`{"kind":"request","url":"u","allowed_domains":"a.com"}`, `field "allowed_domains": expected an array of string, got string`},
		{`{"kind":"request","url":`, `invalid JSON`},
	}
	for _, tt := range tests {
		var r Request
		err := Decode([]byte(tt.in), &r)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Decode(%s) = %v, want %q", tt.in, err, tt.want)
		}
	}
}

func TestEncodeDoesNotEscapeHTML(t *testing.T) {
	out, err := Encode(&Item{Kind: KindItem, Data: json.RawMessage(`{"a":"<b>&"}`), URL: "https://x/?a=1&b=2"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), `\u0026`) || strings.Contains(string(out), `\u003c`) {
		t.Fatalf("HTML-escaped: %s", out)
	}
}

func TestEncodeCompactsMultiLineExtra(t *testing.T) {
	r := Ack{Kind: KindAck, Lease: "l", Extra: map[string]json.RawMessage{"x": json.RawMessage("{\n \"a\": 1\n}")}}
	out, err := Encode(&r)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(out), `{"kind":"ack","lease":"l","x":{"a":1}}`+"\n"; got != want {
		t.Fatalf("got %s want %s", got, want)
	}
}

func TestFieldsKeepOrderAndExactNumbers(t *testing.T) {
	fs, err := Fields([]byte(`{"z":1, "a":{"n":[1,2]}, "m":12345678901234567890.5, "a":"later", "e\u0301":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	var keys, vals []string
	for _, f := range fs {
		keys = append(keys, f.Key)
		vals = append(vals, string(f.Value))
	}
	if got := strings.Join(keys, ","); got != "z,a,m,e\u0301" {
		t.Fatalf("keys = %s", got)
	}
	if vals[1] != `"later"` || vals[2] != "12345678901234567890.5" {
		t.Fatalf("values = %v", vals)
	}
	for _, bad := range []string{`[1]`, `{"a":`, `"s"`, ``} {
		if _, err := Fields([]byte(bad)); err == nil {
			t.Errorf("Fields(%q) should fail", bad)
		}
	}
}

// TestDecodeErrorsNameJSONFieldsNotGoOnes: errors name our JSON fields,
// never Go's structs or types ("Go struct field head.url of type
// string"), also when Decode reads into a struct of a command's own (as
// cdedupe reads the few fields its keys need).
func TestDecodeErrorsNameJSONFieldsNotGoOnes(t *testing.T) {
	type head struct {
		Kind    string          `json:"kind"`
		URL     string          `json:"url"`
		Data    json.RawMessage `json:"data"`
		Retries int             `json:"retries"`
	}
	tests := []struct {
		in   string
		v    any
		want string
	}{
		{`{"url":5}`, new(head), `field "url": expected a string, got number`},
		{`{"kind":true}`, new(head), `field "kind": expected a string, got bool`},
		{`{"retries":1.5}`, new(head), `field "retries": expected an integer, got number 1.5`},
		{`[1]`, new(head), `expected a JSON object, got array`},
		{`{"url":"u","redirects":[{"url":"a","status":"301"}]}`, new(Request), `field "redirects.status": expected an integer, got string`},
		{`{"kind":"item","data":{},"crawlid":5}`, new(Item), `field "crawlid": expected a string, got number`},
		{`{"kind":"response","url":"u","headers":{"a":1}}`, new(Response), `field "headers": expected a string, got number`},
		{`{"kind":"ack","lease":[]}`, new(Ack), `field "lease": expected a string, got array`},
		{`{"url":"u","redirects":[5]}`, new(Request), `field "redirects": expected an object, got number`},
		{`{"url":"u","redirects":5}`, new(Request), `field "redirects": expected an array of object, got number`},
	}
	for _, tt := range tests {
		err := Decode([]byte(tt.in), tt.v)
		if err == nil || err.Error() != tt.want {
			t.Errorf("Decode(%s, %T) = %v, want %q", tt.in, tt.v, err, tt.want)
		}
		if err != nil && (strings.Contains(err.Error(), "Go ") || strings.Contains(err.Error(), "head.") || strings.Contains(err.Error(), "record.")) {
			t.Errorf("Decode(%s, %T) names Go's types: %v", tt.in, tt.v, err)
		}
	}
	// A struct of one's own gets no Extra to fill and is decoded whole.
	var h head
	if err := Decode([]byte(`{"kind":"item","url":"u","data":{"a":1e999},"x":1}`), &h); err != nil || h.URL != "u" || string(h.Data) != `{"a":1e999}` {
		t.Errorf("Decode into a struct of one's own = %+v, %v", h, err)
	}
}

// TestTooDeepIsNotInvalidJSON: a line nested deeper than any JSON decoder
// reads is valid JSON; the error says how deep, not "invalid JSON" or
// "invalid character '['", wherever it is read.
func TestTooDeepIsNotInvalidJSON(t *testing.T) {
	deep := strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1)
	want := fmt.Sprintf("nested more than %d levels deep (at byte", maxDepth)
	for _, line := range []string{`{"kind":"request","url":"u","attrs":` + deep + `}`, `{"a":` + deep + `}`, deep} {
		if _, err := Parse([]byte(line)); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Parse(%.40s…) = %v, want %q…", line, err, want)
		}
	}
	var r Request
	if err := Decode([]byte(`{"url":"u","attrs":`+deep+`}`), &r); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Decode = %v, want %q…", err, want)
	}
}

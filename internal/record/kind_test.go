package record

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestKindIsTheExactKey: only a member named "kind" is a record's kind,
// in every reader: Parse, ParseFields, IsRequest and Decode. A "Kind" (or
// "KIND", or "\u212aind" with the Kelvin sign), which encoding/json would
// also decode into a field tagged "kind", is an ordinary member: data of
// a plain object, an unknown member of a typed record, kept and written
// back, whatever its value. It used to be the kind: {"Name":"Widget",
// "Kind":"Gadget"} was a record of kind "Gadget", which cexport ignored
// (exit 0) instead of exporting it.
func TestKindIsTheExactKey(t *testing.T) {
	tests := []struct {
		name, line string
		kind       string // Parse's
		request    bool   // IsRequest
		// extra are the members Decode keeps in Extra (into the record
		// of kind, or a Request when kind is ""), by key.
		extra []string
	}{
		{"capitalised Kind is data", `{"Name":"Widget","Kind":"Gadget","Price":5}`, "", false, []string{"Kind", "Name", "Price"}},
		{"upper-case KIND", `{"KIND":"item","data":{"a":1}}`, "", false, []string{"KIND", "data"}},
		{"the Kelvin sign", `{"\u212aind":"ack","lease":"l"}`, "", false, []string{"\u212aind"}},
		{"Kind of another type", `{"Kind":{"a":[1]},"n":1}`, "", false, []string{"Kind", "n"}},
		{"a request without kind, with a Kind", `{"url":"https://a.example/","Kind":"Gadget"}`, "", true, []string{"Kind"}},
		{"Kind beside kind", `{"Kind":"Gadget","kind":"item","data":{"a":1}}`, KindItem, false, []string{"Kind"}},
		{"kind beside a later Kind", `{"kind":"request","url":"u","Kind":"item"}`, KindRequest, true, []string{"Kind"}},
		{"a response with KIND", `{"kind":"response","url":"u","KIND":1}`, KindResponse, false, []string{"KIND"}},
		{"an ack with Kind", `{"kind":"ack","lease":"l","Kind":null}`, KindAck, false, []string{"Kind"}},
		{"an escaped kind is the kind", `{"\u006bind":"item","data":{}}`, KindItem, false, nil},
	}
	for _, tt := range tests {
		t.Run(strings.ReplaceAll(tt.name, " ", "_"), func(t *testing.T) {
			env, err := Parse([]byte(tt.line))
			if err != nil || env.Kind != tt.kind {
				t.Fatalf("Parse: kind %q, %v; want %q", env.Kind, err, tt.kind)
			}
			fenv, _, err := ParseFields([]byte(tt.line))
			if err != nil || fenv.Kind != tt.kind {
				t.Fatalf("ParseFields: kind %q, %v; want %q", fenv.Kind, err, tt.kind)
			}
			if env.IsRequest() != tt.request {
				t.Errorf("IsRequest %v, want %v", env.IsRequest(), tt.request)
			}

			var v any
			switch tt.kind {
			case KindResponse:
				v = new(Response)
			case KindItem:
				v = new(Item)
			case KindAck:
				v = new(Ack)
			default:
				v = new(Request)
			}
			if err := Decode([]byte(tt.line), v); err != nil {
				t.Fatalf("Decode into %T: %v", v, err)
			}
			kind := reflect.ValueOf(v).Elem().FieldByName("Kind").String()
			extra := reflect.ValueOf(v).Elem().FieldByName("Extra").Interface().(map[string]json.RawMessage)
			var keys []string
			for k := range extra {
				keys = append(keys, k)
			}
			if kind != tt.kind || !sameKeys(keys, tt.extra) {
				t.Errorf("Decode into %T: Kind %q, Extra %v; want %q, %v", v, kind, keys, tt.kind, tt.extra)
			}

			// Written back, it is the same record: the same kind, the
			// look-alike member with its value.
			out, err := Encode(v)
			if err != nil {
				t.Fatal(err)
			}
			again, err := Parse(out)
			if err != nil || again.Kind != tt.kind {
				t.Errorf("Encode gave %s: kind %q, %v; want %q", out, again.Kind, err, tt.kind)
			}
			var in, back map[string]json.RawMessage
			json.Unmarshal([]byte(tt.line), &in)
			json.Unmarshal(out, &back)
			for _, k := range tt.extra {
				if string(in[k]) != string(back[k]) {
					t.Errorf("member %q written back as %s, read %s", k, back[k], in[k])
				}
			}
		})
	}
}

func sameKeys(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	for _, k := range want {
		found := false
		for _, g := range got {
			found = found || g == k
		}
		if !found {
			return false
		}
	}
	return true
}

// TestDecodeOwnStructTakesOnlyKind: a caller's own struct with a field
// tagged "kind" gets only the member named "kind", as a record does.
func TestDecodeOwnStructTakesOnlyKind(t *testing.T) {
	var h struct {
		Kind    string `json:"kind"`
		CrawlID string `json:"crawlid"`
	}
	if err := Decode([]byte(`{"Kind":7,"crawlid":"c","KIND":"x"}`), &h); err != nil || h.Kind != "" || h.CrawlID != "c" {
		t.Fatalf("got %+v, %v", h, err)
	}
	if err := Decode([]byte(`{"Kind":"x","kind":"item"}`), &h); err != nil || h.Kind != "item" {
		t.Fatalf("got %+v, %v", h, err)
	}
}

package record

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestFindString(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 20000) + "1" + strings.Repeat("}", 20000)
	for _, c := range []struct {
		name, in string
		path     []string
		want     string
		ok       bool
	}{
		{"top", `{"kind":"request","lease":"L1","url":"u"}`, []string{"lease"}, "L1", true},
		{"nested", `{"kind":"response","url":"u","request":{"url":"u","lease":"L2"}}`, []string{"request", "lease"}, "L2", true},
		{"too_deep_attrs_before", `{"kind":"response","request":{"attrs":` + deep + `,"lease":"L3"}}`, []string{"request", "lease"}, "L3", true},
		{"too_deep_attrs_after", `{"kind":"response","request":{"lease":"L4","attrs":` + deep[:len(deep)-5000], []string{"request", "lease"}, "L4", true},
		{"lease_in_attrs_not_taken", `{"request":{"attrs":{"lease":"fake"}},"lease":"top"}`, []string{"request", "lease"}, "", false},
		{"lease_in_array_not_taken", `{"request":[{"lease":"fake"}]}`, []string{"request", "lease"}, "", false},
		{"top_not_nested", `{"attrs":{"lease":"fake"},"lease":"real"}`, []string{"lease"}, "real", true},
		{"value_not_key", `{"x":"lease","y":"z"}`, []string{"lease"}, "", false},
		{"escaped", `{"lease":"a\"b\u00e9"}`, []string{"lease"}, "a\"bé", true},
		{"key_escaped", `{"le\u0061se":"L"}`, []string{"lease"}, "L", true},
		{"number", `{"lease":5}`, []string{"lease"}, "", false},
		{"broken_before", `{"x":tru e,"lease":"L"}`, []string{"lease"}, "L", true},
		{"garbage", `not json`, []string{"lease"}, "", false},
		{"mismatched", `{"a":[}`, []string{"lease"}, "", false},
		{"empty_path", `{"lease":"L"}`, nil, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := FindString([]byte(c.in), c.path...)
			if got != c.want || ok != c.ok {
				t.Errorf("FindString(%.60q, %q) = %q, %v; want %q, %v", c.in, c.path, got, ok, c.want, c.ok)
			}
		})
	}
}

// FuzzFindString: on text encoding/json can read, FindString agrees with it
// on a top-level and a nested string field, and it never panics.
func FuzzFindString(f *testing.F) {
	f.Add(`{"lease":"L","request":{"lease":"R"}}`)
	f.Add(`{"request":{"attrs":{"lease":"x"},"lease":"y"}}`)
	f.Add(`[{"lease":"a"}]`)
	f.Fuzz(func(t *testing.T, in string) {
		top, topOK := FindString([]byte(in), "lease")
		nested, nestedOK := FindString([]byte(in), "request", "lease")
		var v struct {
			Lease   json.RawMessage `json:"lease"`
			Request struct {
				Lease json.RawMessage `json:"lease"`
			} `json:"request"`
		}
		if json.Unmarshal([]byte(in), &v) != nil || strings.Contains(in, `\`) {
			return
		}
		lower := strings.ToLower(in)
		for _, k := range []string{`"lease"`, `"request"`} {
			if strings.Count(lower, k) != strings.Count(in, k) {
				return // encoding/json matches keys without case; records do not
			}
		}
		check := func(name string, raw json.RawMessage, got string, ok bool) {
			var want string
			if json.Unmarshal(raw, &want) != nil || len(raw) == 0 || raw[0] != '"' {
				return
			}
			if strings.Count(strings.ToLower(in), `"lease"`) > 1 {
				return // several members named lease: encoding/json takes the last, FindString the first
			}
			if !ok || got != want {
				t.Errorf("%s of %q: FindString %q, %v; encoding/json %q", name, in, got, ok, want)
			}
		}
		check("lease", v.Lease, top, topOK)
		check("request.lease", v.Request.Lease, nested, nestedOK)
	})
}

func TestNesting(t *testing.T) {
	for in, want := range map[string]int{
		`{}`:                     1,
		`{"a":[1,{"b":"[[[{"}]}`: 3,
		`{"a":"\"[["}`:           1,
		`"x"`:                    0,
		strings.Repeat("[", 600) + strings.Repeat("]", 600): 600,
	} {
		if got := Nesting([]byte(in)); got != want {
			t.Errorf("Nesting(%.40q) = %d, want %d", in, got, want)
		}
	}
}

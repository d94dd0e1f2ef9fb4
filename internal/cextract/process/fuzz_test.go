package process

import (
	"encoding/json"
	"testing"
	"time"
)

// FuzzParseNumber: any text gives either nothing or a valid JSON number,
// and never a panic.
func FuzzParseNumber(f *testing.F) {
	for _, s := range []string{"£51.77", "1,234", "1.234,5", "In stock (22 available)", "-", "−", "1 2", "1\u00a0234", "0000", ".5", "1e5", "x-1", "9'999'999.99"} {
		f.Add(s, byte(0))
		f.Add(s, byte(','))
	}
	f.Fuzz(func(t *testing.T, s string, decimal byte) {
		if decimal != ',' && decimal != '.' {
			decimal = 0
		}
		n, ok := ParseNumber(s, decimal)
		if !ok {
			return
		}
		var x json.Number
		if err := json.Unmarshal([]byte(n), &x); err != nil || x.String() != n {
			t.Fatalf("ParseNumber(%q) = %q, not a JSON number (%v)", s, n, err)
		}
		if _, isInt := toInteger(n); isInt {
			return
		}
	})
}

// FuzzDate: the date processor never panics, and what it gives reads back
// as RFC 3339.
func FuzzDate(f *testing.F) {
	for _, s := range []string{"2024-05-01", "2024-05-01T10:00:00+02:00", "Wed, 01 May 2024 10:00:00 GMT", "May 1, 2024", "01/05/2024", "", "2024-13-45"} {
		f.Add(s, "")
		f.Add(s, "%d/%m/%Y")
	}
	f.Add("12 %", "%d %%")
	f.Add("x", "%")
	f.Fuzz(func(t *testing.T, s, format string) {
		arg := Arg{}
		if format != "" {
			arg = Arg{Kind: ScalarArg, Scalar: Str(format)}
		}
		p, err := New("date", arg)
		if err != nil {
			return
		}
		for _, v := range (Chain{p}).Apply(nil, []Value{Str(s)}, nil) {
			if _, err := time.Parse(time.RFC3339Nano, v.Text); err != nil {
				t.Fatalf("date(%q, %q) = %q: %v", s, format, v.Text, err)
			}
		}
	})
}

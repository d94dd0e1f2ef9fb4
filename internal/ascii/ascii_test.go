package ascii

import "testing"

func TestLower(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"text/html", "text/html"},
		{"Text/HTML; Charset=UTF-8", "text/html; charset=utf-8"},
		{"Цена", "Цена"},
		{"ÜBER Über", "Über Über"},
		{"\u212aELVIN", "\u212aelvin"}, // the Kelvin sign is not K
		{"A\xffB", "a\xffb"},           // invalid UTF-8 kept as it is
	} {
		if got := Lower(tc.in); got != tc.want {
			t.Errorf("Lower(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestEqualFold(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"", "", true},
		{"Tag", "tag", true},
		{"TAG", "tag", true},
		{"Цена", "цена", false},
		{"Über", "über", false},
		{"\u212aind", "kind", false},
		{"tag", "tags", false},
	} {
		if got := EqualFold(tc.a, tc.b); got != tc.want {
			t.Errorf("EqualFold(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

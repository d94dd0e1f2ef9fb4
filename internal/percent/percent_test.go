package percent

import (
	"net/url"
	"strings"
	"testing"
)

func TestUnhexAgreesWithIsHex(t *testing.T) {
	for c := 0; c < 256; c++ {
		v, ok := Unhex(byte(c))
		if ok != IsHex(byte(c)) {
			t.Errorf("%q: Unhex ok %v, IsHex %v", byte(c), ok, IsHex(byte(c)))
		}
		if ok && (LowerHex[v] != byte(c) && UpperHex[v] != byte(c)) {
			t.Errorf("%q: Unhex %d", byte(c), v)
		}
	}
}

func TestEscapeRoundTrip(t *testing.T) {
	for c := 0; c < 256; c++ {
		var b strings.Builder
		WriteEscape(&b, byte(c))
		if got := string(AppendEscape(nil, byte(c))); got != b.String() {
			t.Fatalf("%d: AppendEscape %q, WriteEscape %q", c, got, b.String())
		}
		d, ok := DecodeAt(b.String(), 0)
		if !ok || d != byte(c) {
			t.Fatalf("%d: DecodeAt(%q) = %d, %v", c, b.String(), d, ok)
		}
		if u, err := url.PathUnescape(b.String()); err != nil || u != string([]byte{byte(c)}) {
			t.Fatalf("%d: net/url reads %q as %q, %v", c, b.String(), u, err)
		}
	}
}

func TestDecodeAt(t *testing.T) {
	for _, tc := range []struct {
		s    string
		i    int
		want byte
		ok   bool
	}{
		{"%2f", 0, '/', true},
		{"a%2F", 1, '/', true},
		{"%2", 0, 0, false},
		{"%g0", 0, 0, false},
		{"x20", 0, 0, false},
		{"%20", 1, 0, false},
		{"%20", -1, 0, false},
		{"", 0, 0, false},
	} {
		got, ok := DecodeAt(tc.s, tc.i)
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("DecodeAt(%q, %d) = %q, %v; want %q, %v", tc.s, tc.i, got, ok, tc.want, tc.ok)
		}
	}
}

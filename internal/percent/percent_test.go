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

func TestEscapeStray(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"/a/b.png", "/a/b.png"},
		{"/img/50%off.png", "/img/50%25off.png"},
		{"/a%2Fb%zz%", "/a%2Fb%25zz%25"},
		{"100%.html?q=1%#x%", "100%25.html?q=1%#x%"}, // the query and fragment as they are
		{"%", "%25"},
		{"%4", "%254"},
		{"%41", "%41"},
	} {
		if got := EscapeStray(c.in); got != c.want {
			t.Errorf("EscapeStray(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = EscapeStray("/a/b%20c.png?q=%") }); n != 0 {
		t.Errorf("EscapeStray of a URL without a stray %%: %v allocations", n)
	}
}

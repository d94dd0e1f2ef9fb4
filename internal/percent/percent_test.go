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

// TestEscapeStray: a '%' that starts no escape is written "%25" in the
// path and the fragment (net/url refuses it there; browsers and servers
// take it as a '%'); escapes, the scheme, the authority and the query stay
// as they are. What comes out of a URL net/url refused only for such a
// '%' is one it reads.
func TestEscapeStray(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		parses   bool
	}{
		{"/a/b", "/a/b", true},
		{"/sale-50%-off", "/sale-50%25-off", true},
		{"/x%", "/x%25", true},
		{"/x%4", "/x%254", true},
		{"/a%2Fb%zz", "/a%2Fb%25zz", true},
		{"/a%4?b", "/a%254?b", true},
		{"/100%?d=100%", "/100%25?d=100%", true},
		{"/100%#50%", "/100%25#50%25", true},
		{"/a?b#c", "/a?b#c", true},
		{"100%", "100%25", true},
		{"http://h/%e9%", "http://h/%e9%25", true},
		{"http://h:8080/a%", "http://h:8080/a%25", true},
		{"//h/x%", "//h/x%25", true},
		{"", "", true},
		// A '%' in the authority is left to net/url to refuse.
		{"http://%zz/a%", "http://%zz/a%25", false},
		{"http://u%:p@h/%", "http://u%:p@h/%25", false},
		{"http://h%", "http://h%", false},
	} {
		got := EscapeStray(tc.in)
		if got != tc.want {
			t.Errorf("EscapeStray(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if _, err := url.Parse(got); (err == nil) != tc.parses {
			t.Errorf("EscapeStray(%q) = %q: net/url: %v", tc.in, got, err)
		}
	}
}

func TestParseURL(t *testing.T) {
	for _, c := range []struct{ in, want, err string }{
		{"http://a.test/sale-50%-off", "http://a.test/sale-50%25-off", ""},
		{"/img/50%off.png", "/img/50%25off.png", ""},
		{"http://a.test/%41", "http://a.test/%41", ""},
		{"http://a b/", "", "invalid character"},
		{"http://sho\tp.test/a\r\n", "http://shop.test/a", ""}, // WHATWG: tabs and line breaks left out
		{"http://shop.test/\n50%-off", "http://shop.test/50%25-off", ""},
		{"http://a b/\t", "", "invalid control character"}, // net/url's error for the URL as given
		// WHATWG: a host is percent-decoded before it is read.
		{"http://sh%6Fp.test/a%6F", "http://shop.test/a%6F", ""},
		{"http://u%6F:p%6F@%31%32%37.1:80/", "http://uo:po@127.1:80/", ""}, // net/url writes userinfo so
		{"http://b%C3%BCcher.%74est/", "http://b%C3%BCcher.test/", ""},
		{"http://sh%6Fp.test/50%-off", "http://shop.test/50%25-off", ""},
		{"http://a%2Fb.test/", "", "invalid URL escape"}, // a "/" is no part of a host
		{"http://a%3Ab.test/", "", "invalid URL escape"},
		{"http://a.test:8%30/", "", "invalid port"}, // nor is a port percent-decoded
	} {
		u, err := ParseURL(c.in)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseURL(%q) = %v, %v; want an error with %q", c.in, u, err, c.err)
			}
		case err != nil || u.String() != c.want:
			t.Errorf("ParseURL(%q) = %v, %v; want %s", c.in, u, err, c.want)
		}
	}
}

func TestSlashes(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`\target`, `/target`},
		{`\\host\a`, `//host/a`},
		{`http:\\host\a`, `http://host/a`},
		{`HTTPS:\\host\a\b`, `HTTPS://host/a/b`},
		{`a\b?q=\z#\f`, `a/b?q=\z#\f`}, // the query and fragment keep theirs
		{`/p#\f`, `/p#\f`},
		{`mailto:a\b`, `mailto:a\b`}, // another scheme: no slash
		{`ftp:\\host\`, `ftp:\\host\`},
		{`:\x`, `:/x`},       // no scheme: relative
		{`1a:\x`, `1a:/x`},   // no scheme: a scheme starts with a letter
		{`/plain`, `/plain`}, // no backslash
		{``, ``},
	} {
		if got := Slashes(tt.in); got != tt.want {
			t.Errorf("Slashes(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

package cfetch

import (
	"net/url"
	"testing"
)

func TestCheckURL(t *testing.T) {
	tests := []struct{ in, code, detail string }{
		{"https://example.com/a?b=1", "", ""},
		{"HTTP://Example.com", "", ""},
		{" http://example.com/ ", "", ""},
		{"http://[::1]:8080/", "", ""},
		{"ftp://example.com/f", ErrUnsupportedScheme, `unsupported URL scheme "ftp" (want http or https)`},
		{"file:///etc/passwd", ErrUnsupportedScheme, `unsupported URL scheme "file" (want http or https)`},
		{"mailto:a@b.c", ErrUnsupportedScheme, `unsupported URL scheme "mailto" (want http or https)`},
		{"/relative/path", ErrUnsupportedScheme, `relative URL "/relative/path" (want an absolute http or https URL)`},
		{"example.com/page", ErrUnsupportedScheme, `relative URL "example.com/page" (want an absolute http or https URL)`},
		{"http:///nohost", ErrInvalidURL, `invalid URL "http:///nohost": no host`},
		{"http://:80/", ErrInvalidURL, `invalid URL "http://:80/": no host`},
		{"http://a b.com/", ErrInvalidURL, `invalid URL: "http://a b.com/": invalid character " " in host name`},
		{"http://[::1/", ErrInvalidURL, `invalid URL: "http://[::1/": missing ']' in host`},
		// A port past 65535 was a "network" error, retried, resting the host.
		{"http://127.0.0.1:99999/", ErrInvalidURL, `invalid URL "http://127.0.0.1:99999/": port 99999 is out of range (0-65535)`},
		{"http://example.com:65536/", ErrInvalidURL, `invalid URL "http://example.com:65536/": port 65536 is out of range (0-65535)`},
		{"http://example.com:0000000000080/", "", ""},
		{"http://example.com:0000000065536/", ErrInvalidURL, `invalid URL "http://example.com:0000000065536/": port 0000000065536 is out of range (0-65535)`},
		{"http://example.com:65535/", "", ""},
		{"http://example.com:/", "", ""},
	}
	for _, tt := range tests {
		u, fe := checkURL(tt.in)
		switch {
		case tt.code == "" && (fe != nil || u == nil):
			t.Errorf("checkURL(%q) = %v", tt.in, fe)
		case tt.code != "" && (fe == nil || fe.Code != tt.code || fe.Detail != tt.detail):
			t.Errorf("checkURL(%q) = %v, want %s: %s", tt.in, fe, tt.code, tt.detail)
		}
	}
}

func TestRedirectMethod(t *testing.T) {
	tests := []struct {
		status       int
		method, want string
		keep         bool
	}{
		{301, "GET", "GET", true},
		{301, "POST", "GET", false},
		{302, "POST", "GET", false},
		{302, "PUT", "PUT", true},
		{303, "POST", "GET", false},
		{303, "PUT", "GET", false},
		{303, "HEAD", "HEAD", true},
		{307, "POST", "POST", true},
		{308, "DELETE", "DELETE", true},
	}
	for _, tt := range tests {
		got, keep := redirectMethod(tt.status, tt.method)
		if got != tt.want || keep != tt.keep {
			t.Errorf("redirectMethod(%d, %s) = %s %v, want %s %v", tt.status, tt.method, got, keep, tt.want, tt.keep)
		}
	}
}

func TestChainKeyIgnoresFragments(t *testing.T) {
	a, _ := url.Parse("http://x/a#one")
	b, _ := url.Parse("http://x/a#two")
	c, _ := url.Parse("http://x/a?q")
	if chainKey(a) != chainKey(b) || chainKey(a) == chainKey(c) || a.Fragment != "one" {
		t.Errorf("%s %s %s", chainKey(a), chainKey(b), chainKey(c))
	}
}

// FuzzCheckURL: a URL is either refused with one of the two codes, or is an
// absolute http(s) URL with a host.
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{"https://example.com/a?b#c", "ftp://x/", "/rel", "http:///x", "http://[::1", "HTTP://A:80", "http://%41/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, fe := checkURL(s)
		if fe != nil {
			if fe.Code != ErrUnsupportedScheme && fe.Code != ErrInvalidURL || u != nil {
				t.Fatalf("checkURL(%q) = %v, %v", s, u, fe)
			}
			return
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
			t.Fatalf("checkURL(%q) accepted %#v", s, u)
		}
	})
}

// TestStrayPercent: a '%' that starts no escape in a URL's path
// ("/sale-50%-off"), which net/url refuses, is sent as "%25", as wget and
// cextract's links write it: a request with such a URL, or a redirect to
// one (browsers and curl follow it), is fetched, not answered invalid_url.
func TestStrayPercent(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"http://shop.example/sale-50%-off", "http://shop.example/sale-50%25-off"},
		{"http://shop.example/x%", "http://shop.example/x%25"},
		{"http://shop.example/a%2Fb%zz?d=100%", "http://shop.example/a%2Fb%25zz?d=100%"},
	} {
		u, fe := checkURL(tc.in)
		if fe != nil || u.String() != tc.want {
			t.Errorf("checkURL(%q) = %v, %v; want %s", tc.in, u, fe, tc.want)
		}
	}
	base, _ := url.Parse("http://shop.example/promo/")
	for _, tc := range []struct{ loc, want string }{
		{"/sale-50%-off", "http://shop.example/sale-50%25-off"},
		{"100%", "http://shop.example/promo/100%25"},
		{"http://other.example/%zz", "http://other.example/%25zz"},
	} {
		next, err := resolveLocation(base, tc.loc)
		if err != nil {
			t.Errorf("resolveLocation(%q): %v", tc.loc, err)
			continue
		}
		u, fe := checkURL(next.String())
		if fe != nil || u.String() != tc.want {
			t.Errorf("Location %q: %v, %v; want %s", tc.loc, u, fe, tc.want)
		}
	}
}

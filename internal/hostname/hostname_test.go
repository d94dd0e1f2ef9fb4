package hostname

import (
	"strings"
	"testing"
)

func TestASCII(t *testing.T) {
	for _, tt := range []struct{ in, want, err string }{
		{"shop.test", "shop.test", ""},
		{"SHOP.Test", "shop.test", ""},
		{"127.0.0.1", "127.0.0.1", ""},
		{"::FFFF:7F00:1", "::ffff:7f00:1", ""},
		{"bücher.test", "xn--bcher-kva.test", ""},
		{"BÜCHER.Test", "xn--bcher-kva.test", ""},
		{"xn--bcher-kva.test", "xn--bcher-kva.test", ""},
		{"例え.テスト", "xn--r8jz45g.xn--zckzah", ""},
		{"straße.test", "xn--strae-oqa.test", ""}, // UTS #46 nontransitional, as browsers
		{"a\u00adb.test", "ab.test", ""},          // a soft hyphen is mapped away
		{"bad\u200e.test", "", "idna"},            // a bidi mark is no part of a name
	} {
		got, err := ASCII(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ASCII(%q) = %q, %v; want an error with %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ASCII(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// FuzzASCII: what ASCII writes is ASCII, in lower case, and written
// again it stays as it is.
func FuzzASCII(f *testing.F) {
	for _, s := range []string{"shop.test", "SHOP.Test", "bücher.test", "例え.テスト", "xn--bcher-kva.test", "", "a..b", "[::1]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		a, err := ASCII(host)
		if err != nil {
			return
		}
		if !IsASCII(a) || strings.ToLower(a) != a {
			t.Fatalf("ASCII(%q) = %q: not ASCII in lower case", host, a)
		}
		if b, err := ASCII(a); err != nil || b != a {
			t.Fatalf("ASCII(%q) = %q, but ASCII(%q) = %q, %v", host, a, a, b, err)
		}
	})
}

package policy

import "testing"

// TestOnDomain: Scrapy's allowed_domains rule, with IDN domains matched in
// both the forms a host comes in (IDNA 2003 from a URL written in Unicode,
// UTS #46 from a link cextract resolved).
func TestOnDomain(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		host    string
		domains []string
		want    bool
	}{
		{"a.test", []string{"a.test"}, true},
		{"www.a.test", []string{"a.test"}, true},
		{"ba.test", []string{"a.test"}, false},
		{"a.test", []string{" A.Test "}, true},
		{"WWW.A.TEST", []string{"a.test"}, true},
		{"", []string{"a.test"}, false},
		{"a.test", nil, false},
		// Trailing and leading dots.
		{"a.test.", []string{"a.test"}, true},
		{"www.a.test.", []string{"a.test."}, true},
		{"a.test", []string{".a.test"}, true},
		// straße.test: UTS #46 keeps ß (the link cextract writes), IDNA
		// 2003 maps it to ss (a seed written in Unicode).
		{"xn--strae-oqa.test", []string{"straße.test"}, true},
		{"www.xn--strae-oqa.test", []string{"straße.test"}, true},
		{"strasse.test", []string{"straße.test"}, true},
		{"xn--strae-oqa.test", []string{"xn--strae-oqa.test"}, true},
		{"straße.test", []string{"xn--strae-oqa.test"}, true},
		{"straße.test", []string{"strasse.test"}, true},
		{"strasse.test", []string{"xn--strae-oqa.test"}, true},
		{"www.strasse.test", []string{"XN--STRAE-OQA.test"}, true},
		{"xn--bcher-kva.example", []string{"bücher.example"}, true},
		{"xn--bcher-kva.example", []string{"BÜCHER.example"}, true},
		{"bücher.example", []string{"xn--bcher-kva.example"}, true},
		{"buecher.example", []string{"bücher.example"}, false},
		{"xn--strae-oqa.test.evil", []string{"straße.test"}, false},
		// IP addresses match only themselves.
		{"127.0.0.1", []string{"127.0.0.1"}, true},
		{"1.127.0.0.1", []string{"127.0.0.1"}, false},
		{"::1", []string{"[::1]"}, true},
		{"[::1]", []string{"::1"}, true},
		{"::2", []string{"::1"}, false},
		// Not domain names: ignored, as Scrapy ignores them.
		{"a.test", []string{"a.test:8080"}, false},
		{"a.test", []string{"http://a.test/"}, false},
		{"a.test", []string{"*.a.test"}, false},
		{"b.test", []string{"a.test:8080", "b.test"}, true},
	} {
		d, _ := NewDomains(tc.domains)
		if got := d.Match(tc.host); got != tc.want {
			t.Errorf("NewDomains(%q).Match(%q) = %v, want %v", tc.domains, tc.host, got, tc.want)
		}
	}
}

func TestNewDomainsBad(t *testing.T) {
	d, bad := NewDomains([]string{"a.test", "a.test:80", " ", "https://b.test/"})
	if len(bad) != 3 || d.Empty() {
		t.Errorf("bad = %q, empty %v", bad, d.Empty())
	}
	if d, _ := NewDomains(nil); !d.Empty() || d.Match("a.test") {
		t.Error("no domains match something")
	}
}

func TestNormalizeDomain(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Example.COM": "example.com", ".example.com.": "example.com", " a.b ": "a.b",
		"bücher.de": "xn--bcher-kva.de", "straße.test": "xn--strae-oqa.test",
		"127.0.0.1": "127.0.0.1", "[::1]": "::1", "::FFFF:127.0.0.1": "127.0.0.1",
	} {
		if got, err := NormalizeDomain(in); err != nil || got != want {
			t.Errorf("NormalizeDomain(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", ".", "https://example.com", "example.com/path", "*.example.com", "a b", "a.test:8080", "[a.test]", "a%2e.test"} {
		if got, err := NormalizeDomain(bad); err == nil {
			t.Errorf("NormalizeDomain(%q) = %q, want an error", bad, got)
		}
	}
}

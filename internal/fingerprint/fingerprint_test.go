package fingerprint

import (
	"encoding/hex"
	"testing"
)

func TestScrapyJSON(t *testing.T) {
	got := string(ScrapyJSON("get", "http://a/é\"", "a\x00"))
	want := `{"body": "6100", "headers": {}, "method": "GET", "url": "http://a/\u00e9\""}`
	if got != want {
		t.Errorf("ScrapyJSON\n got %s\nwant %s", got, want)
	}
	got = string(ScrapyJSON("", "http://a/\U0001F600", ""))
	want = `{"body": "", "headers": {}, "method": "GET", "url": "http://a/\ud83d\ude00"}`
	if got != want {
		t.Errorf("ScrapyJSON\n got %s\nwant %s", got, want)
	}
}

func TestScrapyKnownValue(t *testing.T) {
	// python3 -c 'from scrapy import Request; from scrapy.utils.request import fingerprint;
	//   print(fingerprint(Request("http://www.example.com/")).hex())'
	fp, err := Scrapy("GET", "http://www.example.com/", "")
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(fp[:]); got != "28fd680a059847ede1289d72f7a0e1c470f3d8d2" {
		t.Errorf("Scrapy = %s", got)
	}
}

func TestKey64(t *testing.T) {
	a := Key64("GET", "http://a/", "")
	if Key64("", "http://a/", "") != a || Key64("get", "http://a/", "") != a {
		t.Error("Key64 does not normalize the method")
	}
	if Key64("POST", "http://a/", "") == a || Key64("GET", "http://a/", "x") == a || Key64("GET", "http://b/", "") == a {
		t.Error("Key64 ignores a field")
	}
	// The separators keep fields apart.
	if Key64("GET", "http://a/x", "") == Key64("GET", "http://a/", "x") {
		t.Error("Key64 mixes URL and body")
	}
}

func TestHost(t *testing.T) {
	for in, want := range map[string]string{
		"http://www.example.com/":          "www.example.com",
		"http://User@Example.COM:8080/x?y": "example.com",
		"http://[::1]:8080/":               "::1",
		"http://[2001:DB8::1]/x":           "2001:db8::1",
		"http://u@[::1]/":                  "::1",
		"http://[::1]":                     "::1",
		"https://xn--mnchen-3ya.de":        "xn--mnchen-3ya.de",
		"http://a.b?c":                     "a.b",
		"mailto:x@y":                       "",
		"http:///path":                     "",
	} {
		if got := Host(in); got != want {
			t.Errorf("Host(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestIPv6Hosts: a bracketed IPv6 literal keeps its brackets through
// SafeURL, RequestURL and ScrapyCanonical (as w3lib's canonicalize_url
// keeps them, and as safe_url_string does since scrapy/w3lib#193 was
// fixed), so Host finds it and the frontier can queue it.
func TestIPv6Hosts(t *testing.T) {
	for _, tt := range []struct{ in, canonical, host string }{
		{"http://[::1]:18231/", "http://[::1]:18231/", "::1"},
		{"http://[::1]/", "http://[::1]/", "::1"},
		{"HTTP://[2001:DB8::1]:8080/a?b=1#f", "http://[2001:db8::1]:8080/a?b=1", "2001:db8::1"},
		{"http://u:p@[::1]:80/", "http://u:p@[::1]:80/", "::1"},
		{"http://[::ffff:127.0.0.1]/", "http://[::ffff:127.0.0.1]/", "::ffff:127.0.0.1"},
		{"http://[fe80::1%25eth0]/", "http://[fe80::1%25eth0]/", "fe80::1%25eth0"},
		{"http://[::1]:/x", "http://[::1]/x", "::1"},
		{"http://[::1]/#!frag", "http://[::1]/?_escaped_fragment_=frag", "::1"},
	} {
		c, err := ScrapyCanonical(tt.in)
		if err != nil || c != tt.canonical {
			t.Errorf("ScrapyCanonical(%q) = %q, %v; want %q", tt.in, c, err, tt.canonical)
			continue
		}
		if h := Host(c); h != tt.host {
			t.Errorf("Host(%q) = %q, want %q", c, h, tt.host)
		}
		if c2, err := ScrapyCanonical(c); err != nil || c2 != c {
			t.Errorf("ScrapyCanonical(%q) = %q, %v; not stable", c, c2, err)
		}
	}
	for _, bad := range []string{"http://[::1/", "http://[1.2.3.4]/", "http://[::1]:99999/", "http://[::1]x/", "http://[zz]/"} {
		if c, err := ScrapyCanonical(bad); err == nil {
			t.Errorf("ScrapyCanonical(%q) = %q, want an error", bad, c)
		}
	}
	// Without brackets "http://[::1]:8080/" and "http://[::1:8080]/" were
	// one URL, "http://::1:8080/".
	fps := map[[20]byte]string{}
	for _, u := range []string{"http://[::1]:8080/", "http://[::1:8080]/", "http://[::1]/", "http://[::2]/", "http://[::1]:8081/"} {
		fp, err := Scrapy("GET", u, "")
		if err != nil {
			t.Fatalf("Scrapy(%q): %v", u, err)
		}
		if prev, dup := fps[fp]; dup {
			t.Errorf("Scrapy(%q) = Scrapy(%q)", u, prev)
		}
		fps[fp] = u
		c, _ := ScrapyCanonical(u)
		if fp2, _ := Scrapy("GET", c, ""); fp2 != fp {
			t.Errorf("Scrapy(%q) differs from Scrapy of its canonical URL %q", u, c)
		}
	}
}

func TestCanonicalizeExamples(t *testing.T) {
	// The w3lib docstring's examples and the brief's rules, spelled out.
	for in, want := range map[string]string{
		"http://www.example.com/do?c=3&b=5&b=2&a=50": "http://www.example.com/do?a=50&b=2&b=5&c=3",
		"http://www.example.com/r\u00e9sum\u00e9":    "http://www.example.com/r%C3%A9sum%C3%A9",
		"HTTP://WWW.EXAMPLE.COM:80":                  "http://www.example.com:80/",
		"http://example.com/a%7e?b&a=#f":             "http://example.com/a~?a=&b=",
		"http://example.com/p;x=1?q":                 "http://example.com/p;x=1?q=",
	} {
		got, err := Canonicalize(in)
		if err != nil || got != want {
			t.Errorf("Canonicalize(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func BenchmarkScrapyCanonical(b *testing.B) {
	for b.Loop() {
		_, _ = ScrapyCanonical("https://www.example.com/catalogue/page-2.html?b=2&a=1#x")
	}
}

func BenchmarkKey64(b *testing.B) {
	for b.Loop() {
		_ = Key64("GET", "https://www.example.com/catalogue/page-2.html?a=1&b=2", "")
	}
}

func BenchmarkScrapy(b *testing.B) {
	for b.Loop() {
		_, _ = Scrapy("GET", "https://www.example.com/catalogue/page-2.html?b=2&a=1#x", "")
	}
}

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

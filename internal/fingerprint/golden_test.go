package fingerprint

import (
	"bufio"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"
)

// golden is one line of testdata/w3lib.jsonl, written by the real w3lib and
// Scrapy (testdata/gen_w3lib.py).
type golden struct {
	URL              string `json:"url"`
	Method           string `json:"method"`
	Body             string `json:"body"`
	Canonical        string `json:"canonical"`
	CanonicalError   string `json:"canonical_error"`
	Safe             string `json:"safe"`
	SafeError        string `json:"safe_error"`
	RequestURL       string `json:"request_url"`
	Fingerprint      string `json:"fingerprint"`
	FingerprintError string `json:"fingerprint_error"`
	Fingerprint26    string `json:"fingerprint_2_6"`
}

func loadGolden(t testing.TB) []golden {
	t.Helper()
	f, err := os.Open("testdata/w3lib.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []golden
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	first := true
	for sc.Scan() {
		if first { // the header names the generator and library versions
			first = false
			continue
		}
		var g golden
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatalf("w3lib.jsonl: %v", err)
		}
		if safe, ok := ipv6Fixed[g.URL]; ok {
			g = withIPv6Fix(g, safe)
		}
		out = append(out, g)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) < 200 {
		t.Fatalf("w3lib.jsonl has %d cases, want at least 200", len(out))
	}
	return out
}

// ipv6Fixed lists the golden URLs where crawlutils deliberately differs from
// w3lib 2.1: safe_url_string drops the brackets of an IPv6 host
// (scrapy/w3lib#193, fixed on w3lib's main branch), so Scrapy 2.8 requests
// "http://::1:8080/", which has no host and is the same URL as
// "http://[::1:8080]/". SafeURL keeps the brackets, as fixed w3lib does;
// the value is that safe URL.
var ipv6Fixed = map[string]string{
	"http://[::1]/":            "http://[::1]/",
	"http://[::1]:8080/":       "http://[::1]:8080/",
	"http://[2001:DB8::1]/x":   "http://[2001:db8::1]/x",
	"http://[fe80::1%25eth0]/": "http://[fe80::1%25eth0]/",
}

// withIPv6Fix returns g as fixed w3lib and Scrapy would answer it: the safe
// and request URL keep the brackets, and both fingerprints hash w3lib's own
// canonical form of the URL (canonicalize_url keeps brackets), the one
// canonicalize_url also gives for the bracketed safe URL.
func withIPv6Fix(g golden, safe string) golden {
	g.Safe, g.RequestURL = safe, safe
	fp := sha1.Sum(ScrapyJSON(g.Method, g.Canonical, g.Body))
	g.Fingerprint = hex.EncodeToString(fp[:])
	fp = sha1.Sum([]byte(normMethod(g.Method) + g.Canonical + g.Body))
	g.Fingerprint26 = hex.EncodeToString(fp[:])
	return g
}

func TestCanonicalizeMatchesW3lib(t *testing.T) {
	for _, g := range loadGolden(t) {
		if g.Method != "GET" || g.Body != "" {
			continue
		}
		got, err := Canonicalize(g.URL)
		switch {
		case g.CanonicalError != "" && err == nil:
			t.Errorf("Canonicalize(%q) = %q, w3lib fails: %s", g.URL, got, g.CanonicalError)
		case g.CanonicalError == "" && err != nil:
			t.Errorf("Canonicalize(%q): %v, w3lib gives %q", g.URL, err, g.Canonical)
		case got != g.Canonical:
			t.Errorf("Canonicalize(%q)\n got %q\nwant %q", g.URL, got, g.Canonical)
		}
	}
}

func TestSafeURLMatchesW3lib(t *testing.T) {
	for _, g := range loadGolden(t) {
		if g.Method != "GET" || g.Body != "" {
			continue
		}
		got, err := SafeURL(g.URL)
		switch {
		case g.SafeError != "" && err == nil:
			t.Errorf("SafeURL(%q) = %q, w3lib fails: %s", g.URL, got, g.SafeError)
		case g.SafeError == "" && err != nil:
			t.Errorf("SafeURL(%q): %v, w3lib gives %q", g.URL, err, g.Safe)
		case got != g.Safe:
			t.Errorf("SafeURL(%q)\n got %q\nwant %q", g.URL, got, g.Safe)
		}
	}
}

func TestScrapyFingerprintMatchesScrapy(t *testing.T) {
	for _, g := range loadGolden(t) {
		fp, err := Scrapy(g.Method, g.URL, g.Body)
		switch {
		case g.FingerprintError != "" && err == nil:
			t.Errorf("Scrapy(%q, %q, %q) = %x, Scrapy fails: %s", g.Method, g.URL, g.Body, fp, g.FingerprintError)
		case g.FingerprintError == "" && err != nil:
			t.Errorf("Scrapy(%q, %q, %q): %v", g.Method, g.URL, g.Body, err)
		case err == nil && hex.EncodeToString(fp[:]) != g.Fingerprint:
			ru, _ := RequestURL(g.URL)
			t.Errorf("Scrapy(%q, %q, %q) = %x, want %s (request URL %q, want %q)", g.Method, g.URL, g.Body, fp, g.Fingerprint, ru, g.RequestURL)
		}
		if g.FingerprintError == "" {
			if fp, _ := ScrapyLegacy(g.Method, g.URL, g.Body); hex.EncodeToString(fp[:]) != g.Fingerprint26 {
				t.Errorf("ScrapyLegacy(%q, %q, %q) = %x, want %s", g.Method, g.URL, g.Body, fp, g.Fingerprint26)
			}
			if ru, err := RequestURL(g.URL); err != nil || ru != g.RequestURL {
				t.Errorf("RequestURL(%q) = %q, %v; want %q", g.URL, ru, err, g.RequestURL)
			}
		}
	}
}

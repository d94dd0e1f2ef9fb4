package fingerprint

import (
	"bufio"
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

package throttle

import (
	"strings"
	"testing"
)

func TestHostKey(t *testing.T) {
	for raw, want := range map[string][2]string{
		"https://Example.COM/a":          {"example.com", "https://example.com"},
		"https://example.com:443/a":      {"example.com", "https://example.com"},
		"http://example.com:80":          {"example.com", "http://example.com"},
		"http://example.com:443/":        {"example.com:443", "http://example.com:443"},
		"https://example.com:8443/x?y#z": {"example.com:8443", "https://example.com:8443"},
		"http://[::1]:8080/":             {"[::1]:8080", "http://[::1]:8080"},
		"http://[::1]/":                  {"[::1]", "http://[::1]"},
		"http://user:pw@a.test/":         {"a.test", "http://a.test"},
		// The key of an internationalized name is the name on the wire,
		// as cfetch sends it, however the URL spells it.
		"http://Bücher.test:8080/":   {"xn--bcher-kva.test:8080", "http://xn--bcher-kva.test:8080"},
		"http://b%C3%BCcher.test/":   {"xn--bcher-kva.test", "http://xn--bcher-kva.test"},
		"http://xn--bcher-kva.test/": {"xn--bcher-kva.test", "http://xn--bcher-kva.test"},
		"/relative":                  {"", ""},
		"mailto:a@b.test":            {"", ""},
		"":                           {"", ""},
		"http://%zz/":                {"", ""},
		// A '%' that starts no escape in the path is the page's business,
		// not the host's: the request is throttled as any other.
		"http://example.com/sale-50%-off": {"example.com", "http://example.com"},
		"http://example.com/b%":           {"example.com", "http://example.com"},
	} {
		key, origin := HostKey(raw)
		if key != want[0] || origin != want[1] {
			t.Errorf("HostKey(%q) = %q, %q; want %q, %q", raw, key, origin, want[0], want[1])
		}
	}
}

// TestTableFoldsHostKeys: a rates file's host keys match the keys HostKey
// gives, whatever the case or the spelling of an internationalized name.
func TestTableFoldsHostKeys(t *testing.T) {
	def := mustRate(t, "1/s", 1)
	table, err := ReadTable(strings.NewReader("Bücher.test 1/5s\nxn--caf-dma.test:8080 2/s\n"), "rates.txt", def, true)
	if err != nil {
		t.Fatal(err)
	}
	for raw, want := range map[string]string{
		"http://bücher.test/":           "1/5s",
		"http://XN--BCHER-KVA.test:81/": "1/5s",
		"http://café.test:8080/":        "2/s",
		"http://café.test/":             "1/s",
	} {
		key, _ := HostKey(raw)
		if got := table.For(key).String(); got != want {
			t.Errorf("%s (key %s): rate %s, want %s", raw, key, got, want)
		}
	}
}

// TestTableKeysByTheHostRule: a rates file's host key is the host as
// HostKey writes it, by the one rule: "shop.test." is shop.test (as a
// request's key has no trailing dot), "127.1" is 127.0.0.1.
func TestTableKeysByTheHostRule(t *testing.T) {
	def := mustRate(t, "1/s", 1)
	table, err := ReadTable(strings.NewReader("Shop.Test. 1/5s\n127.1:8080 2/s\n[::1]:8080 1/3s\n[::2] 1/4s\n"), "rates.txt", def, true)
	if err != nil {
		t.Fatal(err)
	}
	for raw, want := range map[string]string{
		"http://shop.test/a":      "1/5s",
		"http://shop.test./a":     "1/5s",
		"https://SHOP.test:8443/": "1/5s",
		"http://127.0.0.1:8080/":  "2/s",
		"http://0x7f.1:8080/":     "2/s",
		"http://127.0.0.1/":       "1/s",
		"http://[::1]:8080/":      "1/3s",
		"http://[::2]/":           "1/4s",
	} {
		key, _ := HostKey(raw)
		if got := table.For(key).String(); got != want {
			t.Errorf("%s (key %s): rate %s, want %s", raw, key, got, want)
		}
	}
	if _, err := ReadTable(strings.NewReader("shop.test 1/s\nshop.test. 2/s\n"), "rates.txt", def, true); err == nil || !strings.Contains(err.Error(), "already given on line 1") {
		t.Errorf("shop.test and shop.test.: %v; want one key given twice", err)
	}
}

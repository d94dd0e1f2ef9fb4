package cextract

import (
	"testing"

	"github.com/crawlutils/crawlutils/internal/cextract/rules"
)

func TestTestPage(t *testing.T) {
	for _, tt := range []struct {
		rules, page, name, want string
	}{
		{"shop.yml", "pages/p.ndjson", "x", "pages/p.ndjson"},
		{"dir/shop.yml", "pages/p.ndjson", "x", "dir/pages/p.ndjson"},
		{"dir/shop.yml", "/abs/p.ndjson", "x", "/abs/p.ndjson"},
		{"dir/shop.yml", "", "A product page!", "dir/shop.tests/a-product-page.ndjson"},
		{"shop.yaml", "", "Über / 2", "shop.tests/ber-2.ndjson"},
		{"shop.yml", "", "!!!", "shop.tests/test.ndjson"},
	} {
		got := testPage(tt.rules, &rules.Test{Name: tt.name, Page: rules.String{Value: tt.page}})
		if got != tt.want {
			t.Errorf("testPage(%q, page %q, name %q) = %q, want %q", tt.rules, tt.page, tt.name, got, tt.want)
		}
	}
}

func TestResolveAgainst(t *testing.T) {
	for _, tt := range []struct{ page, ref, want string }{
		{"https://shop.example/p/1", "/p/2", "https://shop.example/p/2"},
		{"https://shop.example/p/1", "https://other.example/x", "https://other.example/x"},
		{"https://shop.example/p/1", "3", "https://shop.example/p/3"},
		{"", "/p/2", "/p/2"},
	} {
		if got := resolveAgainst(tt.page, tt.ref); got != tt.want {
			t.Errorf("resolveAgainst(%q, %q) = %q, want %q", tt.page, tt.ref, got, tt.want)
		}
	}
}

func TestSameJSON(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{`1`, `1.0`, true},
		{`"1"`, `1`, false},
		{`{"a":[1,2]}`, `{"a": [1, 2]}`, true},
		{`["a","b"]`, `["b","a"]`, false},
		{`null`, `null`, true},
	} {
		if got := sameJSON([]byte(tt.a), []byte(tt.b)); got != tt.want {
			t.Errorf("sameJSON(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestCompleteWords(t *testing.T) {
	c := &completer{}
	c.page, c.s = nil, &session{}
	c.words = []string{".price", ".price-old", "#main", "h1", "header"}
	c.page = c.s.page // the words are the page's
	for _, tt := range []struct {
		line    string
		want    string
		changed bool
	}{
		{".pr", ".price", true}, // both start .price: the common part
		{"div .price-o", "div .price-old", true},
		{"#m", "#main", true},
		{"h", "h", false}, // h1 and header share only h
		{":ru", ":rules ", true},
		{":q", ":quit", true},
		{"zz", "", false},
	} {
		got, pos, ok := c.complete(tt.line, len(tt.line), '\t')
		if ok != tt.changed || ok && (got != tt.want || pos != len(tt.want)) {
			t.Errorf("complete(%q) = %q, %d, %v; want %q, %v", tt.line, got, pos, ok, tt.want, tt.changed)
		}
	}
	if _, _, ok := c.complete(".pr", 3, 'x'); ok {
		t.Error("a key other than Tab completed")
	}
}

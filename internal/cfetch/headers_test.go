package cfetch

import (
	"testing"

	"github.com/crawlutils/crawlutils/internal/record"
)

func TestRefererFor(t *testing.T) {
	tests := []struct{ referer, target, want string }{
		{"http://shop.test/list?page=2", "http://shop.test/p/1", "http://shop.test/list?page=2"},
		{"https://shop.test/list", "https://cdn.test/p/1", "https://shop.test/list"},
		{"http://shop.test/list", "https://shop.test/p/1", "http://shop.test/list"},
		// Credentials, fragment and the default port are not sent.
		{"http://user:pw@shop.test:80/list#top", "http://shop.test/p/1", "http://shop.test/list"},
		{"https://shop.test:443/list", "https://shop.test/p/1", "https://shop.test/list"},
		{"http://shop.test:8080/list", "http://shop.test/p/1", "http://shop.test:8080/list"},
		// No Referer from https to http, nor from other schemes.
		{"https://shop.test/list", "http://shop.test/p/1", ""},
		{"file:///home/me/list.html", "http://shop.test/p/1", ""},
		{"data:text/html,<a href=x>", "http://shop.test/p/1", ""},
		{"/relative/list", "http://shop.test/p/1", ""},
		{"http://shop.test/%zz", "http://shop.test/p/1", ""},
	}
	for _, tt := range tests {
		if got := refererFor(tt.referer, mustURL(t, tt.target)); got != tt.want {
			t.Errorf("refererFor(%q, %q) = %q, want %q", tt.referer, tt.target, got, tt.want)
		}
	}
}

func TestRequestHeadersReferer(t *testing.T) {
	target := mustURL(t, "http://shop.test/p/1")
	o := DefaultOptions()
	o.Headers.Set("Referer", "http://default.test/")
	tests := []struct {
		name    string
		referer bool
		req     record.Request
		want    string
	}{
		{"field", true, record.Request{Referer: "http://shop.test/list"}, "http://shop.test/list"},
		{"own header wins", true, record.Request{Referer: "http://shop.test/list", Headers: map[string]string{"referer": "http://mine.test/"}}, "http://mine.test/"},
		{"no field: -H", true, record.Request{}, "http://default.test/"},
		{"no referer by policy: -H", true, record.Request{Referer: "https://shop.test/list"}, "http://default.test/"},
		{"--no-referer", false, record.Request{Referer: "http://shop.test/list"}, "http://default.test/"},
	}
	for _, tt := range tests {
		o.Referer = tt.referer
		h, _, err := requestHeaders(&o, &tt.req, target)
		if err != nil {
			t.Fatal(err)
		}
		if got := h.Get("Referer"); got != tt.want {
			t.Errorf("%s: Referer %q, want %q", tt.name, got, tt.want)
		}
	}
}

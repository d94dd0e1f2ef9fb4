package policy

import (
	"encoding/json"
	"testing"

	"github.com/crawlutils/crawlutils/internal/record"
)

// TestExtensionsOfASitemapEntry: a sitemap's entry is held to its own
// deny_extensions only; any other request, to Scrapy's default without
// its own.
func TestExtensionsOfASitemapEntry(t *testing.T) {
	for _, tt := range []struct {
		source string
		own    []string
		denied bool // is /x.rss denied
	}{
		{`"sitemap:robots"`, nil, false},
		{`"sitemap:index"`, nil, false},
		{` "sitemap:url"`, nil, false},
		{`"sitemap:alternate"`, nil, false},
		{`"sitemap:url"`, []string{"rss"}, true},
		{`"a@href"`, nil, true},
		{`"discover:sitemaps"`, nil, true},
		{`["sitemap:url"]`, nil, true},
		{``, nil, true},
	} {
		req := &record.Request{URL: "http://a.test/x.rss", DenyExtensions: tt.own, Extra: map[string]json.RawMessage{}}
		if tt.source != "" {
			req.Extra["source"] = json.RawMessage(tt.source)
		}
		_, denied := Compile(req).ExtensionsOf(req).MatchPath("/x.rss")
		if denied != tt.denied {
			t.Errorf("source %s, deny_extensions %q: /x.rss denied %v, want %v", tt.source, tt.own, denied, tt.denied)
		}
	}
}

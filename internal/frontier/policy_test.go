package frontier

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/policy"
	"github.com/crawlutils/crawlutils/internal/record"
)

func TestPolicyCheck(t *testing.T) {
	now := time.Unix(2_000_000_000, 0)
	for _, c := range []struct {
		name   string
		policy Policy
		req    record.Request
		want   string
	}{
		{"plain seed", Policy{}, record.Request{URL: "https://a.test/"}, ""},
		{"no url", Policy{}, record.Request{}, ReasonInvalid},
		{"relative url", Policy{}, record.Request{URL: "/a/b"}, ReasonInvalid},
		{"ftp url", Policy{}, record.Request{URL: "ftp://a.test/x"}, ReasonInvalid},
		{"no host", Policy{}, record.Request{URL: "http:///x"}, ReasonInvalid},
		{"bad host", Policy{}, record.Request{URL: "http://a b/"}, ReasonInvalid},
		// A '%' that starts no escape is read as itself, as cfetch sends it.
		{"stray percent", Policy{}, record.Request{URL: "http://a.test/sale-50%-off"}, ""},
		{"crawl mode needs crawlid", Policy{CrawlMode: true}, record.Request{URL: "http://a.test/", AppID: "app"}, ReasonInvalid},
		{"crawl mode needs appid", Policy{CrawlMode: true}, record.Request{URL: "http://a.test/", CrawlID: "c"}, ReasonInvalid},
		{"crawl mode appid too short", Policy{CrawlMode: true}, record.Request{URL: "http://a.test/", AppID: "ab", CrawlID: "c"}, ReasonInvalid},
		{"crawl mode crawlid too long", Policy{CrawlMode: true}, record.Request{URL: "http://a.test/", AppID: "app", CrawlID: strings.Repeat("c", 41)}, ReasonInvalid},
		{"crawl mode ok", Policy{CrawlMode: true}, record.Request{URL: "http://a.test/", AppID: "app", CrawlID: "c"}, ""},
		{"useragent too short", Policy{}, record.Request{URL: "http://a.test/", UserAgent: "ab"}, ReasonInvalid},
		{"useragent with a newline", Policy{}, record.Request{URL: "http://a.test/", UserAgent: "bot\nX: 1"}, ReasonInvalid},
		{"method not a token", Policy{}, record.Request{URL: "http://a.test/", Method: "G ET"}, ReasonInvalid},
		{"method ok", Policy{}, record.Request{URL: "http://a.test/", Method: "PROPFIND"}, ""},
		{"header value with CR LF", Policy{}, record.Request{URL: "http://a.test/", Headers: map[string]string{"X-A": "1\r\nX-B: 2"}}, ReasonInvalid},
		{"header name not a token", Policy{}, record.Request{URL: "http://a.test/", Headers: map[string]string{"X A": "1"}}, ReasonInvalid},
		{"headers ok", Policy{}, record.Request{URL: "http://a.test/", Headers: map[string]string{"Accept-Language": "fr, en;q=0.5"}}, ""},
		{"negative depth", Policy{}, record.Request{URL: "http://a.test/", Depth: -1}, ReasonInvalid},
		{"negative expires", Policy{}, record.Request{URL: "http://a.test/", Expires: -1}, ReasonInvalid},
		{"empty allowed domain", Policy{}, record.Request{URL: "http://a.test/", AllowedDomains: []string{" "}}, ReasonInvalid},
		{"allowed domain with a port", Policy{}, record.Request{URL: "http://a.test/", AllowedDomains: []string{"a.test:8080"}}, ReasonInvalid},
		{"allowed domain as a URL", Policy{}, record.Request{URL: "http://a.test/", AllowedDomains: []string{"https://a.test/"}}, ReasonInvalid},
		{"bad regex", Policy{}, record.Request{URL: "http://a.test/", AllowRegex: []string{"a("}}, ReasonInvalid},
		{"python-only regex", Policy{}, record.Request{URL: "http://a.test/", DenyRegex: []string{"(?!x)"}}, ReasonInvalid},
		{"attrs not an object", Policy{}, record.Request{URL: "http://a.test/", Attrs: []byte(`[1]`)}, ReasonInvalid},
		{"attrs object", Policy{}, record.Request{URL: "http://a.test/", Attrs: []byte(`{"a":1}`)}, ""},

		{"expired", Policy{}, record.Request{URL: "http://a.test/", Expires: now.Unix()}, ReasonExpired},
		{"not yet expired", Policy{}, record.Request{URL: "http://a.test/", Expires: now.Unix() + 1}, ""},

		{"within maxdepth", Policy{}, record.Request{URL: "http://a.test/", Depth: 2, MaxDepth: 2}, ""},
		{"beyond maxdepth", Policy{}, record.Request{URL: "http://a.test/", Depth: 3, MaxDepth: 2}, policy.ReasonMaxDepth},
		{"maxdepth 0 is no limit", Policy{}, record.Request{URL: "http://a.test/", Depth: 30}, ""},

		{"seed outside allowed_domains", Policy{}, record.Request{URL: "http://other.test/", AllowedDomains: []string{"a.test"}}, ""},
		{"follow-up offsite", Policy{}, record.Request{URL: "http://other.test/", Depth: 1, AllowedDomains: []string{"a.test"}}, policy.ReasonOffsite},
		{"follow-up on domain", Policy{}, record.Request{URL: "http://a.test/x", Depth: 1, AllowedDomains: []string{"a.test"}}, ""},
		{"follow-up on subdomain", Policy{}, record.Request{URL: "http://www.A.test:8080/x", Depth: 1, AllowedDomains: []string{"a.test"}}, ""},
		{"suffix is not a subdomain", Policy{}, record.Request{URL: "http://ba.test/x", Depth: 1, AllowedDomains: []string{"a.test"}}, policy.ReasonOffsite},
		{"trailing dot", Policy{}, record.Request{URL: "http://www.a.test./x", Depth: 1, AllowedDomains: []string{"a.test"}}, ""},
		{"IDN allowed domain", Policy{}, record.Request{URL: "http://www.xn--mnchen-3ya.de/", Depth: 1, AllowedDomains: []string{"münchen.de"}}, ""},

		{"allow_regex matches", Policy{}, record.Request{URL: "http://a.test/item/1", Depth: 1, AllowRegex: []string{`/cat/`, `/item/\d+`}}, ""},
		{"allow_regex misses", Policy{}, record.Request{URL: "http://a.test/about", Depth: 1, AllowRegex: []string{`/item/\d+`}}, policy.ReasonNotAllowed},
		{"redirect hop: link rules do not apply", Policy{}, record.Request{URL: "http://a.test/about.pdf", Depth: 1, AllowRegex: []string{`/item/\d+`}, DenyRegex: []string{`about`},
			Redirects: []record.Redirect{{URL: "http://a.test/item/1", Status: 301}}}, ""},
		{"redirect hop offsite", Policy{}, record.Request{URL: "http://other.test/", Depth: 1, AllowedDomains: []string{"a.test"},
			Redirects: []record.Redirect{{URL: "http://a.test/item/1", Status: 301}}}, policy.ReasonOffsite},
		{"redirect hop beyond maxdepth", Policy{}, record.Request{URL: "http://a.test/", Depth: 3, MaxDepth: 2,
			Redirects: []record.Redirect{{URL: "http://a.test/item/1", Status: 301}}}, policy.ReasonMaxDepth},
		{"deny_regex", Policy{}, record.Request{URL: "http://a.test/logout", Depth: 1, DenyRegex: []string{`logout|login`}}, policy.ReasonDenied},
		{"deny wins over allow", Policy{}, record.Request{URL: "http://a.test/item/1?logout", Depth: 1, AllowRegex: []string{`/item/`}, DenyRegex: []string{`logout`}}, policy.ReasonDenied},
		{"seed ignores regexes", Policy{}, record.Request{URL: "http://a.test/logout", DenyRegex: []string{`logout`}}, ""},

		{"default ignored extension", Policy{}, record.Request{URL: "http://a.test/file.PDF", Depth: 1}, policy.ReasonExtension},

		// A file of an item (cextract --files-dir) is not a link: the crawl
		// policy does not hold it back, the schema and expires do.
		{"file: offsite image", Policy{}, record.Request{URL: "http://img.other.test/1.jpg", Depth: 2, AllowedDomains: []string{"a.test"}, Extra: map[string]json.RawMessage{policy.FilesItemField: json.RawMessage(`{"item":{},"pending":[]}`)}}, ""},
		{"file: denied extension", Policy{}, record.Request{URL: "http://a.test/manual.pdf", Depth: 1, Extra: map[string]json.RawMessage{policy.FilesItemField: json.RawMessage(`{"item":{},"pending":[]}`)}}, ""},
		{"file: beyond maxdepth", Policy{}, record.Request{URL: "http://a.test/1.jpg", Depth: 3, MaxDepth: 2, Extra: map[string]json.RawMessage{policy.FilesItemField: json.RawMessage(`{"item":{},"pending":[]}`)}}, ""},
		{"file: deny_regex and allow_regex", Policy{}, record.Request{URL: "http://a.test/media/1.jpg", Depth: 1, AllowRegex: []string{`/item/`}, DenyRegex: []string{`media`}, Extra: map[string]json.RawMessage{policy.FilesItemField: json.RawMessage(`{"item":{},"pending":[]}`)}}, ""},
		{"file: redirect hop offsite", Policy{}, record.Request{URL: "http://cdn.test/1.jpg", Depth: 1, AllowedDomains: []string{"a.test"}, Redirects: []record.Redirect{{URL: "http://a.test/1.jpg", Status: 302}}, Extra: map[string]json.RawMessage{policy.FilesItemField: json.RawMessage(`{"item":{},"pending":[]}`)}}, ""},
		{"file: expired all the same", Policy{}, record.Request{URL: "http://a.test/1.jpg", Depth: 1, Expires: now.Unix(), Extra: map[string]json.RawMessage{policy.FilesItemField: json.RawMessage(`{"item":{},"pending":[]}`)}}, ReasonExpired},
		{"file: invalid all the same", Policy{}, record.Request{URL: "ftp://a.test/1.jpg", Depth: 1, Extra: map[string]json.RawMessage{policy.FilesItemField: json.RawMessage(`{"item":{},"pending":[]}`)}}, ReasonInvalid},
		{"files_item null is no file", Policy{}, record.Request{URL: "http://a.test/1.jpg", Depth: 1, Extra: map[string]json.RawMessage{policy.FilesItemField: json.RawMessage(`null`)}}, policy.ReasonExtension},
		{"tar.gz", Policy{}, record.Request{URL: "http://a.test/x.tar.gz?download=1", Depth: 1}, policy.ReasonExtension},
		{"webp", Policy{}, record.Request{URL: "http://a.test/x.webp", Depth: 1}, policy.ReasonExtension},
		{"TAR.GZ", Policy{}, record.Request{URL: "http://a.test/x.TAR.GZ", Depth: 1}, policy.ReasonExtension},
		{"html passes", Policy{}, record.Request{URL: "http://a.test/x.html", Depth: 1}, ""},
		{"query is not the path", Policy{}, record.Request{URL: "http://a.test/x?f=a.pdf", Depth: 1}, ""},
		{"own deny_extensions replace the default", Policy{}, record.Request{URL: "http://a.test/x.pdf", Depth: 1, DenyExtensions: []string{".php"}}, ""},
		{"own deny_extensions", Policy{}, record.Request{URL: "http://a.test/x.php", Depth: 1, DenyExtensions: []string{"php"}}, policy.ReasonExtension},
		{"empty deny_extensions denies none", Policy{}, record.Request{URL: "http://a.test/x.pdf", Depth: 1, DenyExtensions: []string{}}, ""},
		{"seed with an ignored extension", Policy{}, record.Request{URL: "http://a.test/report.pdf"}, ""},
	} {
		if got := c.policy.Check(&c.req, now); got != c.want {
			_, detail := c.policy.Explain(&c.req, now)
			t.Errorf("%s: Check = %q (%s), want %q", c.name, got, detail, c.want)
		}
	}
}

func TestPolicyExplain(t *testing.T) {
	_, detail := Policy{}.Explain(&record.Request{URL: "http://a.test/", AllowRegex: []string{"a("}}, time.Now())
	if !strings.Contains(detail, `allow_regex[0]: invalid regular expression "a("`) {
		t.Errorf("detail = %q", detail)
	}
	_, detail = Policy{CrawlMode: true}.Explain(&record.Request{URL: "http://a.test/", AppID: "app"}, time.Now())
	if detail != "crawlid: required in crawl mode" {
		t.Errorf("detail = %q", detail)
	}
}

func TestNewEntry(t *testing.T) {
	e, err := ParseEntry([]byte(`{"url":"HTTP://User@WWW.Example.COM:8080/a?b=2&a=1#f","crawlid":"c","appid":"app","priority":3,"depth":2,"dont_filter":true,"expires":99,"lease":"old"}`), KeyFast)
	if err != nil {
		t.Fatal(err)
	}
	if e.Host != "www.example.com" || e.CrawlID != "c" || e.AppID != "app" || e.Priority != 3 || e.Depth != 2 || !e.DontFilter || e.Expires != 99 {
		t.Errorf("entry = %+v", e)
	}
	if strings.Contains(string(e.Raw), "lease") || !strings.HasPrefix(string(e.Raw), `{"kind":"request"`) || strings.HasSuffix(string(e.Raw), "\n") {
		t.Errorf("Raw = %s", e.Raw)
	}
	same, _ := ParseEntry([]byte(`{"url":"http://user@www.example.com:8080/a?a=1&b=2"}`), KeyFast)
	if same.Key != e.Key {
		t.Error("equivalent URLs have different keys")
	}
	s, err := ParseEntry([]byte(`{"url":"http://www.example.com/"}`), KeyScrapy)
	if err != nil || !s.Key.Scrapy || s.Key.String() != "28fd680a059847ede1289d72f7a0e1c470f3d8d2" {
		t.Errorf("Scrapy key = %v, %v", s.Key, err)
	}
	for _, bad := range []string{`{"url":"http://[::1/"}`, `{"url":"http://a:99999/"}`, `{"url":"mailto:x@y"}`, `{"url":5}`} {
		if _, err := ParseEntry([]byte(bad), KeyFast); err == nil {
			t.Errorf("ParseEntry(%s) succeeded", bad)
		}
	}
}

// An explicit empty deny_extensions survives the wire and the queue: a
// follow-up pushed with "deny_extensions":[] (a link rule that follows
// every extension) is not refused for the default list, when it is
// checked at push and after it was stored and handed out; one without
// the field still is.
func TestEmptyDenyExtensionsSurvivesTheQueue(t *testing.T) {
	now := time.Unix(2_000_000_000, 0)
	for line, want := range map[string]string{
		`{"kind":"request","url":"http://a.test/x.pdf","depth":1,"deny_extensions":[]}`: "",
		`{"kind":"request","url":"http://a.test/x.pdf","depth":1}`:                      policy.ReasonExtension,
	} {
		var req record.Request
		if err := record.Decode([]byte(line), &req); err != nil {
			t.Fatal(err)
		}
		if got := (Policy{}).Check(&req, now); got != want {
			t.Errorf("%s: Check at push = %q, want %q", line, got, want)
		}
		e, err := NewEntry(req, KeyFast)
		if err != nil {
			t.Fatal(err)
		}
		popped, err := handout(e.Raw, "L1", 1)
		if err != nil {
			t.Fatal(err)
		}
		var again record.Request
		if err := record.Decode(popped, &again); err != nil {
			t.Fatal(err)
		}
		if got := (Policy{}).Check(&again, now); got != want {
			t.Errorf("%s: stored and handed out as %s: Check = %q, want %q", line, popped, got, want)
		}
	}
}

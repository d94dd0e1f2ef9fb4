package robots

import (
	"fmt"
	"net/url"
	"slices"
	"testing"
)

// The parse-level tests of Google's robots_test.cc (see
// robots_google_test.go): its checks on what the parser saw, translated to
// what our API shows of it.

const (
	differsPartialBOM = "Google also skips the first one or two bytes of a UTF-8 byte-order mark; RFC 9309 has no byte-order mark, and we drop only a whole one (a file that starts with part of one is not UTF-8, so its first line is no record)"

	differsURLString = "Google reads a URL without a scheme as host and path; we take a parsed *url.URL, and url.Parse reads such a string as a relative reference (RFC 3986 §4.2) with no host to strip, which is not RFC 9309's concern"
)

// ID_VerifyValidUserAgentsToObey and GoogleOnly_AcceptUserAgentUpToFirstSpace:
// IsValidUserAgentToObey is ValidToken.
func TestGoogleValidUserAgents(t *testing.T) {
	for s, want := range map[string]bool{
		"Foobot": true, "Foobot-Bar": true, "Foo_Bar": true,
		"": false, "ツ": false, "Foobot*": false, " Foobot ": false, "Foobot/2.1": false, "Foobot Bar": false,
	} {
		if got := ValidToken(s); got != want {
			t.Errorf("ValidToken(%q) = %v, Google says %v", s, got, want)
		}
	}
}

// googleParseCase is one parse of a Google test: how many of its lines are
// records the parser knows (user-agent, allow, disallow, sitemap) and how
// many are unknown, as EachLine reads them. Google also checks the number
// of the last line seen; our API numbers no lines, and what the line
// numbers prove (that CR, LF and CRLF each end one line, with or without a
// final one) is what the counts and the rules read prove here.
type googleParseCase struct {
	test           string
	robots         string
	known, unknown int
	differs        string
}

func TestGoogleParse(t *testing.T) {
	const (
		unix  = "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /\n"
		dos   = "User-Agent: foo\r\nAllow: /some/path\r\nUser-Agent: bar\r\n\r\n\r\nDisallow: /\r\n"
		mac   = "User-Agent: foo\rAllow: /some/path\rUser-Agent: bar\r\r\rDisallow: /\r"
		nofin = "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /"
		mixed = "User-Agent: foo\nAllow: /some/path\r\nUser-Agent: bar\n\r\n\nDisallow: /"
	)
	cases := []googleParseCase{
		{"ID_LinesNumbersAreCountedCorrectly", unix, 4, 0, ""},
		{"ID_LinesNumbersAreCountedCorrectly", dos, 4, 0, ""},
		{"ID_LinesNumbersAreCountedCorrectly", mac, 4, 0, ""},
		{"ID_LinesNumbersAreCountedCorrectly", nofin, 4, 0, ""},
		{"ID_LinesNumbersAreCountedCorrectly", mixed, 4, 0, ""},

		{"ID_UTF8ByteOrderMarkIsSkipped", "\xEF\xBB\xBFUser-Agent: foo\nAllow: /AnyValue\n", 2, 0, ""},
		{"ID_UTF8ByteOrderMarkIsSkipped", "\xEF\xBBUser-Agent: foo\nAllow: /AnyValue\n", 2, 0, differsPartialBOM},
		{"ID_UTF8ByteOrderMarkIsSkipped", "\xEFUser-Agent: foo\nAllow: /AnyValue\n", 2, 0, differsPartialBOM},
		{"ID_UTF8ByteOrderMarkIsSkipped", "\xEF\x11\xBFUser-Agent: foo\nAllow: /AnyValue\n", 1, 1, ""},
		{"ID_UTF8ByteOrderMarkIsSkipped", "User-Agent: foo\n\xEF\xBB\xBFAllow: /AnyValue\n", 1, 1, ""},
	}
	for i, c := range cases {
		t.Run(fmt.Sprintf("%s/%d", c.test, i), func(t *testing.T) {
			known, unknown := 0, 0
			EachLine([]byte(c.robots), func(key, _ string) {
				switch key {
				case "user-agent", "allow", "disallow", "sitemap":
					known++
				default:
					unknown++
				}
			})
			agree(t, known == c.known && unknown == c.unknown, c.differs,
				fmt.Sprintf("%q: %d known and %d unknown records, Google says %d and %d", c.robots, known, unknown, c.known, c.unknown))
		})
	}
	// The rules of the line-ending files read the same: bar may not fetch
	// /some/path, foo may.
	for _, body := range []string{unix, dos, mac, nofin, mixed} {
		u := &url.URL{Scheme: "http", Host: "foo.bar", Path: "/some/path"}
		if !Parse([]byte(body), "foo").Allowed(u) || Parse([]byte(body), "bar").Allowed(u) {
			t.Errorf("%q: foo and bar read wrong", body)
		}
	}
}

// ID_NonStandardLineExample_Sitemap: a Sitemap line anywhere in the file.
func TestGoogleSitemap(t *testing.T) {
	const loc = "http://foo.bar/sitemap.xml"
	const groups = "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\n"
	for _, body := range []string{groups + "Sitemap: " + loc + "\n", "Sitemap: " + loc + "\n" + groups} {
		if got := Parse([]byte(body), "foo").Sitemaps(); !slices.Equal(got, []string{loc}) {
			t.Errorf("%q: sitemaps %q, Google says %q", body, got, loc)
		}
	}
}

// TestGetPathParamsQuery: the part of a URL the rules are matched against
// (our target, of the *url.URL that url.Parse makes of the string).
func TestGooglePathParamsQuery(t *testing.T) {
	cases := []struct{ url, want, differs string }{
		{"", "/", ""},
		{"http://www.example.com", "/", ""},
		{"http://www.example.com/", "/", ""},
		{"http://www.example.com/a", "/a", ""},
		{"http://www.example.com/a/", "/a/", ""},
		{"http://www.example.com/a/b?c=http://d.e/", "/a/b?c=http://d.e/", ""},
		{"http://www.example.com/a/b?c=d&e=f#fragment", "/a/b?c=d&e=f", ""},
		{"example.com", "/", differsURLString},
		{"example.com/", "/", differsURLString},
		{"example.com/a", "/a", differsURLString},
		{"example.com/a/", "/a/", differsURLString},
		{"example.com/a/b?c=d&e=f#fragment", "/a/b?c=d&e=f", differsURLString},
		{"a", "/", differsURLString},
		{"a/", "/", differsURLString},
		{"/a", "/a", ""},
		{"a/b", "/b", differsURLString},
		{"example.com?a", "/?a", differsURLString},
		{"example.com/a;b#c", "/a;b", differsURLString},
		{"//a/b/c", "/b/c", ""},
	}
	for i, c := range cases {
		t.Run(fmt.Sprintf("TestGetPathParamsQuery/%d", i), func(t *testing.T) {
			u, err := url.Parse(c.url)
			if err != nil {
				t.Fatal(err)
			}
			got := target(u)
			agree(t, got == c.want, c.differs, fmt.Sprintf("%q: %q, Google says %q", c.url, got, c.want))
		})
	}
}

// TestMaybeEscapePattern: how a rule's pattern is escaped (normalizePattern).
func TestGoogleMaybeEscapePattern(t *testing.T) {
	for in, want := range map[string]string{
		"http://www.example.com": "http://www.example.com",
		"/a/b/c":                 "/a/b/c",
		"á":                      "%C3%A1",
		"%aa":                    "%AA",
	} {
		if got := normalizePattern(in); got != want {
			t.Errorf("normalizePattern(%q) = %q, Google says %q", in, got, want)
		}
	}
}

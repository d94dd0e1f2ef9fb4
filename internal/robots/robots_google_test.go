package robots

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// Google's robots.txt test suite (github.com/google/robotstxt,
// robots_test.cc at commit 22b355f), translated expectation by expectation.
// Google's TEST names are kept: ID_* tests hold to RFC 9309 (the draft it
// grew from), GoogleOnly_* tests hold Google's own extensions. Each row is
// one EXPECT of the file; a row where we answer otherwise than Google
// carries the reason, from RFC 9309, in its differs field, and is skipped
// with that reason (go test -v shows it). A row listed as differing that
// comes to agree fails, so that the list stays true.
//
// The parse-level tests (tokens, lines, byte-order marks, sitemaps, the
// URL path and the escaping of patterns) are in robots_google_parse_test.go.

// Why we answer otherwise than Google, row by row.
const (
	differsNoColon = "Google reads \"disallow /\" as if it had its colon; RFC 9309 §2.1's grammar requires the ':', so the line is no record"

	differsTypos = "Google accepts misspelt names (disalow, dissallow, useragent, \"user agent\"); RFC 9309 §2.1 names only user-agent, allow and disallow (its leave to accept misspellings, §2.2.4, is for other records)"

	differsUnencodedURL = "Google compares the URL's octets as given, leaving encoding to the caller; RFC 9309 §2.2.2 percent-encodes octets outside US-ASCII in the URI before comparison, and url.URL.EscapedPath has done so"

	differsEscapedUnreserved = "Google compares %62%61%7A as written; RFC 9309 §2.2.2 decodes percent-encoded unreserved characters before comparison (its table matches /foo/bar/%62%61%7A as /foo/bar/baz)"

	differsIndexHTML = "Google reads a rule ending in /index.html as also matching its directory; RFC 9309 §2.2.2 matches a rule against the beginning of the path and nothing else"

	differsLineTooLong = "Google cuts lines after 16664 bytes and matches the cut rule; RFC 9309 sets no line limit (§2.5 bounds the file, to no less than 500 KiB), so the whole rule is matched"
)

// googleCase is one EXPECT of robots_test.cc: whether agent may fetch url.
type googleCase struct {
	test    string // Google's TEST name
	robots  string
	agent   string
	url     string
	want    bool   // Google's answer
	differs string // why ours is otherwise; "" when it is not
}

func TestGoogleSuite(t *testing.T) {
	for i, c := range googleCases() {
		t.Run(fmt.Sprintf("%s/%d", c.test, i), func(t *testing.T) {
			u, err := url.Parse(c.url)
			if err != nil {
				t.Fatal(err)
			}
			got := Parse([]byte(c.robots), c.agent).Allowed(u)
			agree(t, got == c.want, c.differs, fmt.Sprintf("agent %q, %s: allowed %v, Google says %v\n%s", c.agent, c.url, got, c.want, c.robots))
		})
	}
}

// agree fails a row we should agree on and do not, skips a row listed as
// differing with its reason, and fails a row so listed that agrees.
func agree(t *testing.T, ok bool, differs, what string) {
	t.Helper()
	switch {
	case differs == "" && !ok:
		t.Error(what)
	case differs != "" && ok:
		t.Errorf("listed as differing from Google, but agrees: drop the reason\n%s", what)
	case differs != "":
		t.Skip("differs from Google: " + differs)
	}
}

func googleCases() []googleCase {
	const (
		sys    = "user-agent: FooBot\ndisallow: /\n"
		groups = "allow: /foo/bar/\n\nuser-agent: FooBot\ndisallow: /\nallow: /x/\nuser-agent: BarBot\ndisallow: /\nallow: /y/\n\n\nallow: /w/\nuser-agent: BazBot\n\nuser-agent: FooBot\nallow: /z/\ndisallow: /\n"
		other1 = "User-agent: BarBot\nSitemap: https://foo.bar/sitemap\nUser-agent: *\nDisallow: /\n"
		other2 = "User-agent: FooBot\nInvalid-Unknown-Line: unknown\nUser-agent: *\nDisallow: /\n"
		upper  = "USER-AGENT: FooBot\nALLOW: /x/\nDISALLOW: /\n"
		lower  = "user-agent: FooBot\nallow: /x/\ndisallow: /\n"
		camel  = "uSeR-aGeNt: FooBot\nAlLoW: /x/\ndIsAlLoW: /\n"
		uaUp   = "User-Agent: FOO BAR\nAllow: /x/\nDisallow: /\n"
		uaLow  = "User-Agent: foo bar\nAllow: /x/\nDisallow: /\n"
		uaCaml = "User-Agent: FoO bAr\nAllow: /x/\nDisallow: /\n"
		global = "user-agent: *\nallow: /\nuser-agent: FooBot\ndisallow: /\n"
		specif = "user-agent: FooBot\nallow: /\nuser-agent: BarBot\ndisallow: /\nuser-agent: BazBot\ndisallow: /\n"
		xy     = "http://foo.bar/x/y"
		ab     = "http://foo.bar/a/b"
		page   = "http://foo.bar/x/page.html"
		fb     = "http://foo.bar/foo/bar/"
		doc    = "user-agent: FooBot\ndisallow: /\nallow: "
	)
	cases := []googleCase{
		{"GoogleOnly_SystemTest", "", "FooBot", "", true, ""},
		{"GoogleOnly_SystemTest", sys, "", "", true, ""},
		{"GoogleOnly_SystemTest", sys, "FooBot", "", false, ""},
		{"GoogleOnly_SystemTest", "", "", "", true, ""},

		{"ID_LineSyntax_Line", sys, "FooBot", xy, false, ""},
		{"ID_LineSyntax_Line", "foo: FooBot\nbar: /\n", "FooBot", xy, true, ""},
		{"ID_LineSyntax_Line", "user-agent FooBot\ndisallow /\n", "FooBot", xy, false, differsNoColon},

		{"ID_LineSyntax_Groups", groups, "FooBot", "http://foo.bar/x/b", true, ""},
		{"ID_LineSyntax_Groups", groups, "FooBot", "http://foo.bar/z/d", true, ""},
		{"ID_LineSyntax_Groups", groups, "FooBot", "http://foo.bar/y/c", false, ""},
		{"ID_LineSyntax_Groups", groups, "BarBot", "http://foo.bar/y/c", true, ""},
		{"ID_LineSyntax_Groups", groups, "BarBot", "http://foo.bar/w/a", true, ""},
		{"ID_LineSyntax_Groups", groups, "BarBot", "http://foo.bar/z/d", false, ""},
		{"ID_LineSyntax_Groups", groups, "BazBot", "http://foo.bar/z/d", true, ""},
		{"ID_LineSyntax_Groups", groups, "FooBot", "http://foo.bar/foo/bar/", false, ""},
		{"ID_LineSyntax_Groups", groups, "BarBot", "http://foo.bar/foo/bar/", false, ""},
		{"ID_LineSyntax_Groups", groups, "BazBot", "http://foo.bar/foo/bar/", false, ""},

		{"ID_LineSyntax_Groups_OtherRules", other1, "FooBot", "http://foo.bar/", false, ""},
		{"ID_LineSyntax_Groups_OtherRules", other1, "BarBot", "http://foo.bar/", false, ""},
		{"ID_LineSyntax_Groups_OtherRules", other2, "FooBot", "http://foo.bar/", false, ""},
		{"ID_LineSyntax_Groups_OtherRules", other2, "BarBot", "http://foo.bar/", false, ""},

		{"ID_REPLineNamesCaseInsensitive", upper, "FooBot", xy, true, ""},
		{"ID_REPLineNamesCaseInsensitive", lower, "FooBot", xy, true, ""},
		{"ID_REPLineNamesCaseInsensitive", camel, "FooBot", xy, true, ""},
		{"ID_REPLineNamesCaseInsensitive", upper, "FooBot", ab, false, ""},
		{"ID_REPLineNamesCaseInsensitive", lower, "FooBot", ab, false, ""},
		{"ID_REPLineNamesCaseInsensitive", camel, "FooBot", ab, false, ""},
	}
	for _, agent := range []string{"Foo", "foo"} {
		for _, body := range []string{uaUp, uaLow, uaCaml} {
			cases = append(cases,
				googleCase{"ID_UserAgentValueCaseInsensitive", body, agent, xy, true, ""},
				googleCase{"ID_UserAgentValueCaseInsensitive", body, agent, ab, false, ""})
		}
	}
	cases = append(cases, []googleCase{
		{"GoogleOnly_AcceptUserAgentUpToFirstSpace", "User-Agent: *\nDisallow: /\nUser-Agent: Foo Bar\nAllow: /x/\nDisallow: /\n", "Foo", xy, true, ""},
		{"GoogleOnly_AcceptUserAgentUpToFirstSpace", "User-Agent: *\nDisallow: /\nUser-Agent: Foo Bar\nAllow: /x/\nDisallow: /\n", "Foo Bar", xy, false, ""},

		{"ID_GlobalGroups_Secondary", "", "FooBot", xy, true, ""},
		{"ID_GlobalGroups_Secondary", global, "FooBot", xy, false, ""},
		{"ID_GlobalGroups_Secondary", global, "BarBot", xy, true, ""},
		{"ID_GlobalGroups_Secondary", specif, "QuxBot", xy, true, ""},

		{"ID_AllowDisallow_Value_CaseSensitive", "user-agent: FooBot\ndisallow: /x/\n", "FooBot", xy, false, ""},
		{"ID_AllowDisallow_Value_CaseSensitive", "user-agent: FooBot\ndisallow: /X/\n", "FooBot", xy, true, ""},

		{"ID_LongestMatch", "user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/\n", "FooBot", page, false, ""},
		{"ID_LongestMatch", "user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n", "FooBot", page, true, ""},
		{"ID_LongestMatch", "user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n", "FooBot", "http://foo.bar/x/", false, ""},
		{"ID_LongestMatch", "user-agent: FooBot\ndisallow: \nallow: \n", "FooBot", page, true, ""},
		{"ID_LongestMatch", "user-agent: FooBot\ndisallow: /\nallow: /\n", "FooBot", page, true, ""},
		{"ID_LongestMatch", "user-agent: FooBot\ndisallow: /x\nallow: /x/\n", "FooBot", "http://foo.bar/x", false, ""},
		{"ID_LongestMatch", "user-agent: FooBot\ndisallow: /x\nallow: /x/\n", "FooBot", "http://foo.bar/x/", true, ""},
		{"ID_LongestMatch", "user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/page.html\n", "FooBot", page, true, ""},
		{"ID_LongestMatch", "user-agent: FooBot\nallow: /page\ndisallow: /*.html\n", "FooBot", "http://foo.bar/page.html", false, ""},
		{"ID_LongestMatch", "user-agent: FooBot\nallow: /page\ndisallow: /*.html\n", "FooBot", "http://foo.bar/page", true, ""},
		{"ID_LongestMatch", "user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n", "FooBot", page, true, ""},
		{"ID_LongestMatch", "user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n", "FooBot", "http://foo.bar/x/y.html", false, ""},
		{"ID_LongestMatch", "User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n", "FooBot", "http://foo.bar/x/page", true, ""},
		{"ID_LongestMatch", "User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n", "FooBot", "http://foo.bar/y/page", false, ""},

		{"ID_Encoding", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar?qux=taz&baz=http://foo.bar?tar&par\n", "FooBot", "http://foo.bar/foo/bar?qux=taz&baz=http://foo.bar?tar&par", true, ""},
		{"ID_Encoding", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n", "FooBot", "http://foo.bar/foo/bar/%E3%83%84", true, ""},
		{"ID_Encoding", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n", "FooBot", "http://foo.bar/foo/bar/ツ", false, differsUnencodedURL},
		{"ID_Encoding", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n", "FooBot", "http://foo.bar/foo/bar/%E3%83%84", true, ""},
		{"ID_Encoding", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n", "FooBot", "http://foo.bar/foo/bar/ツ", false, differsUnencodedURL},
		{"ID_Encoding", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n", "FooBot", "http://foo.bar/foo/bar/baz", false, differsEscapedUnreserved},
		{"ID_Encoding", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n", "FooBot", "http://foo.bar/foo/bar/%62%61%7A", true, ""},

		{"ID_SpecialCharacters", "User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n", "FooBot", "http://foo.bar/foo/bar/quz", false, ""},
		{"ID_SpecialCharacters", "User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n", "FooBot", "http://foo.bar/foo/quz", true, ""},
		{"ID_SpecialCharacters", "User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n", "FooBot", "http://foo.bar/foo//quz", true, ""},
		{"ID_SpecialCharacters", "User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n", "FooBot", "http://foo.bar/foo/bax/quz", true, ""},
		{"ID_SpecialCharacters", "User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n", "FooBot", "http://foo.bar/foo/bar", false, ""},
		{"ID_SpecialCharacters", "User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n", "FooBot", "http://foo.bar/foo/bar/qux", true, ""},
		{"ID_SpecialCharacters", "User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n", "FooBot", fb, true, ""},
		{"ID_SpecialCharacters", "User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n", "FooBot", "http://foo.bar/foo/bar/baz", true, ""},
		{"ID_SpecialCharacters", "User-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\nAllow: /\n", "FooBot", "http://foo.bar/foo/bar", true, ""},
		{"ID_SpecialCharacters", "User-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\nAllow: /\n", "FooBot", "http://foo.bar/foo/quz", false, ""},

		{"GoogleOnly_IndexHTMLisDirectory", "User-Agent: *\nAllow: /allowed-slash/index.html\nDisallow: /\n", "foobot", "http://foo.com/allowed-slash/", true, differsIndexHTML},
		{"GoogleOnly_IndexHTMLisDirectory", "User-Agent: *\nAllow: /allowed-slash/index.html\nDisallow: /\n", "foobot", "http://foo.com/allowed-slash/index.htm", false, ""},
		{"GoogleOnly_IndexHTMLisDirectory", "User-Agent: *\nAllow: /allowed-slash/index.html\nDisallow: /\n", "foobot", "http://foo.com/allowed-slash/index.html", true, ""},
		{"GoogleOnly_IndexHTMLisDirectory", "User-Agent: *\nAllow: /allowed-slash/index.html\nDisallow: /\n", "foobot", "http://foo.com/anyother-url", false, ""},
	}...)
	cases = append(cases, googleLineTooLong()...)
	docs := []struct {
		allow             string
		allowed, disallow []string
	}{
		{"/fish", []string{"/fish", "/fish.html", "/fish/salmon.html", "/fishheads", "/fishheads/yummy.html", "/fish.html?id=anything"},
			[]string{"/bar", "/Fish.asp", "/catfish", "/?id=fish"}},
		{"/fish*", []string{"/fish", "/fish.html", "/fish/salmon.html", "/fishheads", "/fishheads/yummy.html", "/fish.html?id=anything"},
			[]string{"/bar", "/Fish.bar", "/catfish", "/?id=fish"}},
		{"/fish/", []string{"/fish/", "/fish/salmon", "/fish/?salmon", "/fish/salmon.html", "/fish/?id=anything"},
			[]string{"/bar", "/fish", "/fish.html", "/Fish/Salmon.html"}},
		{"/*.php", []string{"/filename.php", "/folder/filename.php", "/folder/filename.php?parameters", "//folder/any.php.file.html", "/filename.php/", "/index?f=filename.php/"},
			[]string{"/bar", "/php/", "/index?php", "/windows.PHP"}},
		{"/*.php$", []string{"/filename.php", "/folder/filename.php"},
			[]string{"/bar", "/filename.php?parameters", "/filename.php/", "/filename.php5", "/php/", "/filename?php", "/aaaphpaaa", "//windows.PHP"}},
		{"/fish*.php", []string{"/fish.php", "/fishheads/catfish.php?parameters"},
			[]string{"/bar", "/Fish.PHP"}},
	}
	for _, d := range docs {
		for _, p := range d.allowed {
			cases = append(cases, googleCase{"GoogleOnly_DocumentationChecks", doc + d.allow + "\n", "FooBot", "http://foo.bar" + p, true, ""})
		}
		for _, p := range d.disallow {
			cases = append(cases, googleCase{"GoogleOnly_DocumentationChecks", doc + d.allow + "\n", "FooBot", "http://foo.bar" + p, false, ""})
		}
	}
	cases = append(cases, []googleCase{
		{"GoogleOnly_DocumentationChecks", "user-agent: FooBot\nallow: /p\ndisallow: /\n", "FooBot", "http://example.com/page", true, ""},
		{"GoogleOnly_DocumentationChecks", "user-agent: FooBot\nallow: /folder\ndisallow: /folder\n", "FooBot", "http://example.com/folder/page", true, ""},
		{"GoogleOnly_DocumentationChecks", "user-agent: FooBot\nallow: /page\ndisallow: /*.htm\n", "FooBot", "http://example.com/page.htm", false, ""},
		{"GoogleOnly_DocumentationChecks", "user-agent: FooBot\nallow: /$\ndisallow: /\n", "FooBot", "http://example.com/", true, ""},
		{"GoogleOnly_DocumentationChecks", "user-agent: FooBot\nallow: /$\ndisallow: /\n", "FooBot", "http://example.com/page.html", false, ""},

		// Not in robots_test.cc: robots.cc's kAllowFrequentTypos, the
		// extension the suite leaves untested.
		{"robots.cc_AllowFrequentTypos", "user-agent: FooBot\ndisalow: /\n", "FooBot", xy, false, differsTypos},
		{"robots.cc_AllowFrequentTypos", "user-agent: FooBot\ndissallow: /\n", "FooBot", xy, false, differsTypos},
		{"robots.cc_AllowFrequentTypos", "useragent: FooBot\ndisallow: /\n", "FooBot", xy, false, differsTypos},
		{"robots.cc_AllowFrequentTypos", "user agent: FooBot\ndisallow: /\n", "FooBot", xy, false, differsTypos},
	}...)
	return cases
}

// googleLineTooLong is GoogleOnly_LineTooLong: rules on lines longer than
// Google's limit of 8 × 2083 bytes.
func googleLineTooLong() []googleCase {
	const maxLine = 2083 * 8
	// long is Google's longline: "/x/" then c up to max_length, so that
	// "<name>: " + long + "/qux\n" is just over the limit.
	long := func(name, c string) string {
		maxLength := maxLine - len("/x/") - len(name) + len("\n")
		return "/x/" + strings.Repeat(c, maxLength-len("/x/"))
	}
	const test = "GoogleOnly_LineTooLong"
	d := long("disallow: ", "a")
	dis := "user-agent: FooBot\ndisallow: " + d + "/qux\n"
	a, b := long("allow: ", "a"), long("allow: ", "b")
	allow := "user-agent: FooBot\ndisallow: /\nallow: " + a + "/qux\nallow: " + b + "/qux\n"
	return []googleCase{
		{test, dis, "FooBot", "http://foo.bar/fux", true, ""},
		{test, dis, "FooBot", "http://foo.bar" + d + "/fux", false, differsLineTooLong},
		{test, allow, "FooBot", "http://foo.bar/", false, ""},
		{test, allow, "FooBot", "http://foo.bar" + a + "/qux", true, ""},
		{test, allow, "FooBot", "http://foo.bar" + b + "/fux", true, differsLineTooLong},
	}
}

package percent

import (
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// FuzzEscapeStray holds EscapeStray and ParseURL to net/url:
//   - ParseURL never fails where url.Parse succeeds, and gives the same URL
//     then; where url.Parse fails, ParseURL gives its error, or the URL
//     url.Parse reads in the input without tabs and line breaks, then with
//     its host's escapes of host characters decoded, or in EscapeStray's
//     output of that;
//   - EscapeStray is idempotent, and leaves a string without a stray '%'
//     as it is;
//   - where the input's only problem is a stray '%' in its path or
//     fragment (written as a plain character instead, url.Parse reads it),
//     EscapeStray's output parses, and each stray '%' reads as itself.
func FuzzEscapeStray(f *testing.F) {
	for _, s := range []string{
		"http://shop.example/sale-50%-off", "/sale-50%-off", "/img/50%off.png", "/x%", "/x%4", "/a%2Fb%zz",
		"/a%4?b", "/100%?d=100%", "/100%#50%", "100%", "http://h/%e9%", "http://h:8080/a%", "//h/x%",
		"http://%zz/a%", "http://u%:p@h/%", "http://h%", "///x%", "http:///x%", "mailto:a%", "a%:b",
		"http://a b/", "http://a.test/%41", "%%41", "/%5F%", "#%", "?%#%", "http://[::1%25eth0]/%",
		"", "%", "http://h/p%?q%#f%", "http://sh%6Fp.test/a", "http://u%41@%31%32%37.1:8%30/", "http://a%2Fb/",
		"http://a%25b/%", "http://[%41::1]/", "http://b%C3%BCcher.%74est/",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, werr := url.Parse(s)
		got, gerr := ParseURL(s)
		switch {
		case werr == nil:
			if gerr != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("ParseURL(%q) = %#v, %v; url.Parse: %#v", s, got, gerr, want)
			}
		case gerr != nil:
			if gerr.Error() != werr.Error() {
				t.Fatalf("ParseURL(%q) error %q, url.Parse's %q", s, gerr, werr)
			}
		default:
			// Tabs and line breaks left out, then a stray '%' escaped.
			clean := strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(s)
			again, err := url.Parse(clean)
			if err != nil {
				clean = unescapeHost(clean)
				again, err = url.Parse(clean)
			}
			if err != nil {
				again, err = url.Parse(EscapeStray(clean))
			}
			if err != nil || !reflect.DeepEqual(got, again) {
				t.Fatalf("ParseURL(%q) = %#v, not url.Parse of it cleaned %#v, %v", s, got, again, err)
			}
		}

		e := EscapeStray(s)
		if again := EscapeStray(e); again != e {
			t.Fatalf("EscapeStray(%q) = %q, then %q", s, e, again)
		}
		strays := strayAt(s)
		if len(strays) == 0 {
			if e != s {
				t.Fatalf("EscapeStray(%q) = %q, without a stray %%", s, e)
			}
			return
		}
		// The input with each stray '%' written as a character that means
		// the same in every part of a URL, and that nothing else in it
		// stands for.
		var mark byte
		for _, c := range []byte("_~!*") {
			esc := strings.ToUpper(string(AppendEscape(nil, c)))
			if !strings.Contains(s, string(c)) && !strings.Contains(strings.ToUpper(s), esc) {
				mark = c
				break
			}
		}
		if mark == 0 {
			return
		}
		plain := []byte(s)
		for _, i := range strays {
			plain[i] = mark
		}
		m := string(mark)
		p, err := url.Parse(string(plain))
		if err != nil || strings.Contains(p.Scheme+p.Host+p.User.Username(), m) {
			return // not only a stray '%', or one in the authority
		}
		if pw, _ := p.User.Password(); strings.Contains(pw, m) {
			return
		}
		u, err := url.Parse(e)
		if err != nil {
			t.Fatalf("EscapeStray(%q) = %q: %v (%q parses)", s, e, err, plain)
		}
		// Decoded, a stray '%' is itself; the opaque part and the query
		// are kept as written, the query's '%' as it was.
		back := func(x string) string { return strings.ReplaceAll(x, m, "%") }
		if u.Path != back(p.Path) || u.Fragment != back(p.Fragment) || u.Opaque != strings.ReplaceAll(p.Opaque, m, "%25") || u.RawQuery != back(p.RawQuery) {
			t.Fatalf("EscapeStray(%q) = %q reads as %#v; want the stray %% of %#v", s, e, u, p)
		}
	})
}

// strayAt returns where s has a '%' that starts no escape.
func strayAt(s string) []int {
	var at []int
	for i := 0; i < len(s); i++ {
		if _, ok := DecodeAt(s, i); s[i] == '%' && !ok {
			at = append(at, i)
		}
	}
	return at
}

// FuzzSlashes: Slashes changes only backslashes before the query, each
// into a slash, and only in an http(s) or relative reference; what it
// writes it leaves as it is.
func FuzzSlashes(f *testing.F) {
	for _, s := range []string{`\target`, `\\host\a`, `http:\\host\a`, `HTTPS:\\h\`, `a\b?q=\z#\f`, `mailto:a\b`, `ftp:\\h\`, `:\x`, `1a:\x`, ``, `\`, `?\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Slashes(s)
		if again := Slashes(got); again != got {
			t.Fatalf("Slashes(%q) = %q, then %q", s, got, again)
		}
		if len(got) != len(s) {
			t.Fatalf("Slashes(%q) = %q: not the same length", s, got)
		}
		end := strings.IndexAny(s, "?#")
		if end < 0 {
			end = len(s)
		}
		if got[end:] != s[end:] {
			t.Fatalf("Slashes(%q) = %q: the query or fragment changed", s, got)
		}
		for i := 0; i < end; i++ {
			if got[i] != s[i] && !(s[i] == '\\' && got[i] == '/') {
				t.Fatalf("Slashes(%q) = %q: byte %d changed", s, got, i)
			}
		}
		if got != s && strings.Contains(got[:end], `\`) {
			t.Fatalf("Slashes(%q) = %q: a backslash left", s, got)
		}
	})
}

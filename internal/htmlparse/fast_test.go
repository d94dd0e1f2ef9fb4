package htmlparse

import (
	"strings"
	"testing"
)

// checkFastParse fails t when Fast gives a tree x/net/html would not, and
// reports whether Fast took body.
func checkFastParse(t testing.TB, body string) bool {
	fast := Fast(body)
	if fast == nil {
		return false
	}
	slow, err := Standard(body)
	if err != nil {
		t.Fatalf("Fast accepted what x/net/html refuses: %v\n%q", err, body)
	}
	if d := Diff(fast, slow); d != "" {
		t.Fatalf("trees differ at %s\ninput %.2000q", d, body)
	}
	return true
}

var fastParseSeeds = []string{
	`<!DOCTYPE html><html><head><title>T &amp; U</title></head><body><p>x</p></body></html>`,
	"<!doctype html>\n<html lang=en>\n<head>\n<meta charset=\"utf-8\">\n<style>p>a{}</style>\n<script>if (a < b && c) {}</script>\n</head>\n<body class=\"a b\">\n<div id=x><a href=\"/a?b=1&amp;c=2\" title='q'>l</a></div>\n<table><tr><td>1</td></tr>\n<tr><th>2</th></tr></table>\n</body>\n</html>\n",
	`<html><head></head><body><ul><li>a</li><li>b<ul><li>c</li></ul></li></ul><!-- c --></body></html><!-- after -->`,
	`<html><head></head><body><p>a<b>b</b>c</p><p>d</p></body>  </html>  `,
	`<html><head></head><body><p>a<p>b</body></html>`,
	`<html><head></head><body><a href=x><a href=y></a></a></body></html>`,
	`<html><head></head><body><table><tbody><tr><td><table><tr><td>x</td></tr></table></td></tr></tbody></table></body></html>`,
	`<html><head></head><body><pre>x</pre><pre>` + "\n" + `y</pre></body></html>`,
	`<html><head></head><body>a < b &lt; c &copy d &notit; e</body></html>`,
	`<html><head></head><body><img src="a&copy=1" alt="&amp;&lt;"><br/><div/>x</body></html>`,
	`<html><head><noscript><link></noscript></head><body></body></html>`,
	`<html><head></head><body><svg><a xlink:href="/s"/></svg></body></html>`,
	`<html><head></head><body><table>x<tr></tr></table></body></html>`,
	`<html><head></head><body><b><i>x</b></i></body></html>`,
	`<html><head></head><body><form><form></form></form><button><button></button></button></body></html>`,
	`<html><head></head><body><h1><h2>x</h2></h1><dl><dt>a<dd>b</dl></body></html>`,
	`<html><head></head><body><select><option>a</select><textarea>x</textarea></body></html>`,
	`<html><head></head><body><p>x</p></body></html>` + "\n<p>after</p>",
	`<html><head></head><body><script><!-- x --></script><title>a&amp;b</title></body></html>`,
	`<html><head></head><body><a href="x"title=y>z</a><a b c=d>e</a><a B=1 b=2></a></body></html>`,
	`<html><head></head><body><div data-x=&amp;>x</div><div data-y=a=b>y</div></body></html>`,
	`<!DOCTYPE html SYSTEM "about:legacy-compat"><html><head></head><body></body></html>`,
	`<html><head></head><body><!--->x<!-- a --->y<!-- --!> --></body></html>`,
	"<html><head></head><body>\r\n</body></html>",
	"<!DOCTYPE html>\r\n<html>\r\n<head>\r<title>a\r\nb</title>\r\n<script>x\r\ny</script></head>\r\n<body\r\nclass=\"a\r\nb\"\rid=c\r><a\rhref=x\r\n>l\r\r\n</a><!-- c\r\n --></body></html>\r\n",
	`<html><body></body></html>`, `<p>fragment</p>`, ``,
}

func TestFastParseAgreesWithXNetHTML(t *testing.T) {
	accepted := 0
	for _, s := range fastParseSeeds {
		if checkFastParse(t, s) {
			accepted++
		}
	}
	if accepted < 5 {
		t.Fatalf("Fast took only %d seeds", accepted)
	}
}

// FuzzFastParse: wherever Fast builds a tree, it is x/net/html's.
func FuzzFastParse(f *testing.F) {
	for _, s := range fastParseSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		checkFastParse(t, body)
	})
}

func TestNormalizeNewlines(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"a\nb", "a\nb"},
		{"a\r\nb", "a\nb"},
		{"a\rb", "a\nb"},
		{"\r\r\n\n\r", "\n\n\n\n"},
		{"x\r", "x\n"},
		{"\r\n", "\n"},
	} {
		if got := normalizeNewlines(c.in); got != c.want {
			t.Errorf("normalizeNewlines(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestFastParseTakesCRLFPages: a page served with CRLF line endings (IIS,
// many PHP templates) takes the fast path and builds x/net/html's tree.
func TestFastParseTakesCRLFPages(t *testing.T) {
	for _, s := range fastParseSeeds {
		if !checkFastParse(t, s) {
			continue
		}
		for _, nl := range []string{"\r\n", "\r"} {
			crlf := strings.ReplaceAll(s, "\n", nl)
			if !checkFastParse(t, crlf) {
				t.Errorf("Fast gave up on %q", crlf)
			}
		}
	}
}

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
	`<html><head></head><body><!-- &amp; &copy &#65; --><?&not></body></html>`,
	"<html><head></head><body>\r\n</body></html>",
	"<!DOCTYPE html>\r\n<html>\r\n<head>\r<title>a\r\nb</title>\r\n<script>x\r\ny</script></head>\r\n<body\r\nclass=\"a\r\nb\"\rid=c\r><a\rhref=x\r\n>l\r\r\n</a><!-- c\r\n --></body></html>\r\n",
	`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>x</title></head><body><p>y</p></body></html>`,
	`<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN"><html><head></head><body><p>a</p><table><tr><td>b</td></tr></table></body></html>`,
	`<!DOCTYPE html SYSTEM 'about:legacy-compat' ><html><head></head><body><?php echo 1 ?></body></html>`,
	`<html><head><noscript><link rel=stylesheet href=a.css><style>p{}</style> <!-- c --></noscript></head><body></body></html>`,
	`<html><head><noscript><img src=x></noscript></head><body></body></html>`,
	`<html><head><noscript><meta http-equiv=refresh content=0></noscript><title>t</title></head><body><noscript><iframe src="https://www.googletagmanager.com/ns.html?id=GTM-X" height="0"></iframe></noscript></body></html>`,
	`<html><head></head><body><iframe src=a><p>not markup</p></iframe><iframe/>x</iframe ></body></html>`,
	`<html><head><script><!-- if (a < b) {} --></script></head><body></body></html>`,
	`<html><head><script><!-- document.write("<script>x</script>") --></script></head><body></body></html>`,
	`<html><head><link href="https://fonts.googleapis.com/css?family=Roboto&display=swap" rel=stylesheet></head><body><a href="/p?a=1&copy=2&amp;b=3&utm_source=x&lt&ampx&notin &AMP">x</a><img alt="&copy 2026 &amp &reg;" src=x&y=1&copy=2></body></html>`,
	`<html><head></head><body><a href="/cart"><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" class="icon" aria-hidden="true"><title>Cart &amp; more</title><defs><linearGradient id="g"><stop offset="0"/></linearGradient><clipPath id=c><rect width=1 height=1 /></clipPath></defs><path d="M0 0h24v24H0z" fill="none"/><use xlink:href="#i" xmlns:xlink="http://www.w3.org/1999/xlink"></use><!-- c --><g><circle cx=1 cy=1 r=1></circle></g></svg> Cart</a><svg/><p><svg><text>x</text></svg></p></body></html>`,
	`<html><head></head><body><svg><title><b>x</b></title><p>y</p><foreignObject><div></div></foreignObject><font color=red></font><script>1</script><style>a{}</style><![CDATA[x]]></svg></body></html>`,
	`<html><head></head><body><pre>
code
</pre><pre>&#10;x</pre><listing>

y</listing><pre><!-- c -->
z</pre><table><col><col span=2> <colgroup><col></colgroup><colgroup> <!-- c --></colgroup><colgroup><tr><td>1</td></tr></table><table><colgroup></table></body></html>`,
	`<html><head></head><body><table><col><caption>c</caption><col>x</table></body></html>`,
	`<html><head></head><body><form><p>Size <select name=size><option value=s>S<option value=m selected>M</option>
<optgroup label=Big><option>L<option>XL</optgroup><optgroup label=Huge><option>XXL</select></p><select><option>a</option></select>
<textarea name=r>
Great &amp; cheap</textarea><textarea></textarea><textarea>&#10;x</textarea></form><datalist><option>d</option></datalist></body></html>`,
	`<html><head></head><body><select><b>x</b><select><input></select><select><option><p></select></body></html>`,
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

// TestFastParseTakesCommonPages: what many real pages hold (an XML
// declaration, an XHTML or HTML 4 doctype, a <noscript> in <head>, an
// iframe, a commented-out script, query strings with raw '&' in
// attributes) takes the fast path.
func TestFastParseTakesCommonPages(t *testing.T) {
	for _, s := range fastParseSeeds {
		if strings.Contains(s, "<?xml") || strings.Contains(s, "PUBLIC") || strings.Contains(s, "<noscript><link") ||
			strings.Contains(s, "<iframe src=a>") || strings.Contains(s, "<script><!-- if") || strings.Contains(s, "&display=swap") || strings.Contains(s, "<svg xmlns") || strings.Contains(s, "<pre>\ncode") || strings.Contains(s, "name=size") {
			if !checkFastParse(t, s) {
				t.Errorf("Fast gave up on %q", s)
			}
		}
	}
}

package cfetch

import (
	"net/http"
	"net/url"
	"testing"
)

// TestCookieHeaderAsSet: a cookie goes back as the server set it. A value
// it set in double quotes (Python's http.cookies, Werkzeug and Tomcat
// quote values with a space, a comma or an '='; RFC 6265 §4.1.1 allows
// it) is sent back quoted, as browsers and Go's own client send it: the
// quotes are part of the value the server reads back.
func TestCookieHeaderAsSet(t *testing.T) {
	u, _ := url.Parse("http://shop.example/a")
	for _, tc := range []struct{ set, want string }{
		{"s=abc; Path=/", "s=abc"},
		{`q="a b"; Path=/`, `q="a b"`},
		{`t="abc"; Path=/`, `t="abc"`},
		{`e=""; Path=/`, `e=""`},
		{"n=; Path=/", "n="},
	} {
		jars := newCookieJars(4)
		jars.store("c", u, http.Header{"Set-Cookie": {tc.set}})
		if got := jars.header("c", u); got != tc.want {
			t.Errorf("Set-Cookie: %s: Cookie: %s, want %s", tc.set, got, tc.want)
		}
	}
}

package cfetch

import (
	"bytes"
	stdgzip "compress/gzip"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"golang.org/x/net/publicsuffix"
)

// FuzzGzipReader holds cfetch's gzipReader to the standard library's
// multistream gzip.Reader: on any bytes it never panics and gives a prefix
// of what gzip.Reader decodes (never more than the members' data); it
// ends cleanly where gzip.Reader does, with all of it, and where it ends
// cleanly it has given all gzip.Reader decodes. A well-formed stream of
// one or two members followed by bytes that do not begin another
// (padding, a CRLF, an HTML comment) gives exactly the members' data,
// whatever the size of the reads.
func FuzzGzipReader(f *testing.F) {
	for _, tail := range []string{"", "\x00\x00\x00\x00", "\r\n", "<!-- cached -->", "\x1f", "\x1f\x8b", "\x1f\x8b\x08\x00garbage", string(gz([]byte("more")))} {
		f.Add([]byte("hello hello hello"), []byte("second member"), []byte(tail), uint8(1))
		f.Add([]byte("<html>a page</html>"), []byte(nil), []byte(tail), uint8(4<<2))
	}
	f.Add(append(gz([]byte("x")), "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"...), []byte(nil), []byte(nil), uint8(2))
	f.Fuzz(func(t *testing.T, a, b, tail []byte, mode uint8) {
		stream := a // mode&2: any bytes
		if mode&2 == 0 {
			stream = gz(a)
			if mode&1 == 1 {
				stream = append(stream, gz(b)...)
			}
			stream = append(stream, tail...)
		}
		var want []byte
		var werr error
		if zr, err := stdgzip.NewReader(bytes.NewReader(stream)); err != nil {
			werr = err
		} else {
			want, werr = io.ReadAll(zr)
		}

		var got []byte
		var g gzipReader
		err := g.reset(iotest.HalfReader(bytes.NewReader(stream)))
		p := make([]byte, max(1, int(mode>>2)))
		for i := 0; err == nil; i++ {
			if i > 1<<20 {
				t.Fatal("no end")
			}
			var n int
			n, err = g.Read(p)
			got = append(got, p[:n]...)
		}
		if err == io.EOF {
			err = nil
		}
		if !bytes.HasPrefix(want, got) {
			t.Fatalf("gave %d bytes, not a prefix of gzip.Reader's %d (%v)", len(got), len(want), werr)
		}
		if (werr == nil || err == nil) && !bytes.Equal(got, want) {
			t.Fatalf("gave %d bytes (%v), gzip.Reader %d (%v)", len(got), err, len(want), werr)
		}
		if werr == nil && err != nil {
			t.Fatalf("failed (%v) where gzip.Reader read it all", err)
		}
		if mode&2 == 0 && (len(tail) < 2 || tail[0] != 0x1f || tail[1] != 0x8b) {
			members := a
			if mode&1 == 1 {
				members = append(append([]byte(nil), a...), b...)
			}
			if err != nil || !bytes.Equal(got, members) {
				t.Fatalf("members and %q: gave %q, %v; want %q", tail, got, err, members)
			}
		}
	})
}

func gz(b []byte) []byte { return compress("gzip", b) }

// FuzzParseSetCookie: on any line parseSetCookie never panics; a cookie
// it keeps has a name and value without ';', control characters or
// white space around them, 4096 bytes at most together, and written
// again as a server would write it, it reads back the same.
func FuzzParseSetCookie(f *testing.F) {
	for _, s := range []string{
		"s=abc; Path=/", `q="a b"; Path=/`, `q=a"b`, `bs=a\b`, "utf=café", "token", "=v", "=a=b",
		"old=; Expires=Wed, 09-Jun-21 10:18:14 GMT; Path=/", "s=1; Max-Age=0", "s=1; Max-Age=-5; Max-Age=7",
		"s=1; Domain=..shop.example; Secure; HttpOnly; SameSite=Lax", "s=1; Path=rel", "ctl=a\x01b", " ; ", "__Host-x",
	} {
		f.Add(s)
	}
	now := time.Date(2026, 12, 8, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, line string) {
		c, ok := parseSetCookie(line, now)
		if !ok {
			return
		}
		for _, s := range []string{c.Name, c.Value} {
			if strings.ContainsFunc(s, func(r rune) bool { return r == ';' || r < 0x20 && r != '\t' || r == 0x7f }) || s != trimWSP(s) {
				t.Fatalf("parseSetCookie(%q): name %q, value %q", line, c.Name, c.Value)
			}
		}
		if len(c.Name)+len(c.Value) > maxCookieNameValue {
			t.Fatalf("parseSetCookie(%q): %d bytes", line, len(c.Name)+len(c.Value))
		}
		again := c.Name + "=" + c.Value
		if c.Path != "" {
			again += "; Path=" + c.Path
		}
		if c.Domain != "" {
			again += "; Domain=" + c.Domain
		}
		if !c.Expires.IsZero() {
			again += "; Expires=" + c.Expires.Format(http.TimeFormat)
		}
		if c.MaxAge != 0 {
			again += "; Max-Age=" + strconv.Itoa(max(c.MaxAge, 0))
		}
		if c.Secure {
			again += "; Secure"
		}
		if c.HttpOnly {
			again += "; HttpOnly"
		}
		if c.SameSite != 0 {
			again += "; SameSite=" + map[http.SameSite]string{http.SameSiteDefaultMode: "x", http.SameSiteLaxMode: "Lax", http.SameSiteStrictMode: "Strict", http.SameSiteNoneMode: "None"}[c.SameSite]
		}
		c2, ok := parseSetCookie(again, now)
		if !ok || c2.Name != c.Name || c2.Value != c.Value || c2.Path != c.Path || c2.Domain != c.Domain || !c2.Expires.Equal(c.Expires) ||
			c2.MaxAge != c.MaxAge || c2.Secure != c.Secure || c2.HttpOnly != c.HttpOnly || c2.SameSite != c.SameSite {
			t.Fatalf("parseSetCookie(%q) = %+v; written again as %q it reads %+v, %v", line, *c, again, c2, ok)
		}
	})
}

// FuzzCookieDate: on any text cookieDate never panics and a date it
// gives exists and is not before 1601; a date written in the three
// formats of HTTP (RFC 9110 §5.6.7; the two-digit year of RFC 850 read
// as 1970–2069) reads as itself.
func FuzzCookieDate(f *testing.F) {
	f.Add("Wed, 09-Jun-21 10:18:14 GMT", int64(0))
	f.Add("Sun Nov  6 08:49:37 1994", int64(784111777))
	f.Add("31 Feb 2020 00:00:00", int64(253402300799))
	f.Add("", int64(-11644473600))
	f.Fuzz(func(t *testing.T, s string, unix int64) {
		if d, ok := cookieDate(s); ok && (d.Year() < 1601 || d.Nanosecond() != 0) {
			t.Fatalf("cookieDate(%q) = %v", s, d)
		}
		const first, last = -11644473600, 253402300799 // 1601-01-01, 9999-12-31T23:59:59
		if unix < first || unix > last {
			unix = first + (unix%(last-first)+(last-first))%(last-first)
		}
		want := time.Unix(unix, 0).UTC()
		layouts := []string{http.TimeFormat, time.ANSIC}
		if y := want.Year(); y >= 1970 && y <= 2069 {
			layouts = append(layouts, "Monday, 02-Jan-06 15:04:05 GMT")
		}
		for _, layout := range layouts {
			in := want.Format(layout)
			if got, ok := cookieDate(in); !ok || !got.Equal(want) {
				t.Fatalf("cookieDate(%q) = %v, %v; want %v", in, got, ok, want)
			}
		}
	})
}

// FuzzCookieID holds cookieID to cookiejar: a cookie it names is one the
// jar keeps, under that name (set again expired, it is gone), and one it
// refuses the jar refuses, so the cookies counted against the limits are
// those the jar holds.
func FuzzCookieID(f *testing.F) {
	for _, s := range [][2]string{
		{"http://shop.example/a/b", "s=1"},
		{"http://shop.example/", "s=1; Domain=.SHOP.example"},
		{"http://www.shop.example/", "s=1; Domain=shop.example; Path=/x"},
		{"http://shop.example/", "s=1; Domain=other.example"},
		{"http://shop.example/", "s=1; Domain=example"},
		{"http://co.uk/", "s=1; Domain=co.uk"},
		{"http://127.0.0.1:8080/", "s=1; Domain=127.0.0.1"},
		{"http://127.0.0.1/", "s=1; Domain=.127.0.0.1"},
		{"http://[::1]/", "s=1; Domain=::1"},
		{"http://[::1]/", "s=1"},
		{"http://[::1]:8080/a/", "s=1; Domain=::1"},
		{"http://kite.example/", "s=1; Domain=\u212aite.example"},
		{"http://caf\u00e9.example/", "s=1; Domain=xn--caf-dma.example"},
		{"http://shop.example./", "s=1; Domain=shop.example."},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, rawURL, line string) {
		u, err := url.Parse(rawURL)
		if err != nil || u.Scheme != "http" && u.Scheme != "https" {
			return
		}
		ck, ok := parseSetCookie(line, time.Now())
		if !ok || ck.MaxAge < 0 || !ck.Expires.IsZero() {
			return
		}
		ck.Secure = false
		jar, _ := cookiejar.New(&cookiejar.Options{PublicSuffixList: publicsuffix.List})
		jar.SetCookies(u, []*http.Cookie{ck})
		id, _, named := cookieID(u, ck)
		kept := false
		if named {
			domain, path := id.domain, id.path
			host := domain
			if strings.Contains(domain, ":") && domain[0] != '[' {
				host = "[" + domain + "]:80" // without a port, cookiejar keeps the brackets
			}
			if strings.HasSuffix(host, ".") {
				host += "." // cookiejar drops one final dot
			}
			kept = len(jar.Cookies(&url.URL{Scheme: "http", Host: host, Path: path})) == 1
		} else {
			path := ck.Path
			if path == "" || path[0] != '/' {
				path = u.Path
			}
			kept = len(jar.Cookies(&url.URL{Scheme: "http", Host: u.Host, Path: path})) == 1
		}
		if kept != named {
			t.Fatalf("%s Set-Cookie: %q: cookieID %+v, %v; the jar keeps it: %v", rawURL, line, id, named, kept)
		}
	})
}

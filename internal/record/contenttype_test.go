package record

import (
	"strings"
	"testing"
)

func TestContentType(t *testing.T) {
	tests := []struct{ in, media, charset string }{
		{"text/html", "text/html", ""},
		{"Text/HTML; Charset=UTF-8", "text/html", "UTF-8"},
		{`text/html; charset="shift_jis"`, "text/html", "shift_jis"},
		{"text/html; charset='euc-kr' ", "text/html", "euc-kr"},
		{"text/html;charset=", "text/html", ""},
		{"text/html; foo; charset=latin1; charset=utf-8", "text/html", "latin1"},
		{"text/html; a=\"b;c\"; charset=x", "text/html", "x"},
		{"", "", ""},
		{";charset=utf-8", "", ""},
		{"html", "", ""},
		// Repeated headers, joined with ", " as a response record has
		// them: the last type counts (the Fetch standard's "extract a
		// MIME type"), keeping the charset an earlier one of the same
		// type gave.
		{"text/html, text/html; charset=windows-1251", "text/html", "windows-1251"},
		{"text/html; charset=windows-1251, text/html", "text/html", "windows-1251"},
		{"text/html; charset=utf-8, text/html; charset=windows-1251", "text/html", "windows-1251"},
		{"text/plain; charset=utf-8, text/html", "text/html", ""},
		{"text/html; charset=utf-8, */*", "text/html", "utf-8"},
		{"text/html; charset=utf-8, nonsense", "text/html", "utf-8"},
		{`text/html; charset="a,b"`, "text/html", "a,b"},
	}
	for _, tt := range tests {
		media, cs := ContentType(tt.in)
		if media != tt.media || cs != tt.charset {
			t.Errorf("ContentType(%q) = %q, %q; want %q, %q", tt.in, media, cs, tt.media, tt.charset)
		}
	}
}

func FuzzContentType(f *testing.F) {
	for _, s := range []string{"text/html; charset=utf-8", `a/b; charset="x`, ";;=;", "text/html; charset='", "", `a/b, c/d; charset="e,f"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		media, cs := ContentType(s)
		if strings.ContainsAny(media, ";, ") || len(media) > len(s) || len(cs) > len(s) {
			t.Fatalf("ContentType(%q) = %q, %q", s, media, cs)
		}
	})
}

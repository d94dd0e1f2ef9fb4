package cfetch

import (
	"testing"
	"time"
)

func TestParseRefresh(t *testing.T) {
	tests := []struct {
		in   string
		wait time.Duration
		url  string
		ok   bool
	}{
		{"5; url=/next", 5 * time.Second, "/next", true},
		{"0;URL='http://a.test/x y'", 0, "http://a.test/x y", true},
		{` 1.5 , URL = "/q?a=1" `, 1500 * time.Millisecond, "/q?a=1", true},
		{"3; /plain", 3 * time.Second, "/plain", true},
		{"10", 0, "", false},
		{"10;", 0, "", false},
		{"url=/x", 0, "", false},
		{"-1; url=/x", 0, "", false},
		{"1e3; url=/x", 0, "", false},
	}
	for _, tt := range tests {
		wait, u, ok := parseRefresh(tt.in)
		if wait != tt.wait || u != tt.url || ok != tt.ok {
			t.Errorf("parseRefresh(%q) = %s %q %v, want %s %q %v", tt.in, wait, u, ok, tt.wait, tt.url, tt.ok)
		}
	}
}

func TestFindMetaRefresh(t *testing.T) {
	tests := []struct {
		page, url string
	}{
		{`<html><head><meta http-equiv="refresh" content="0; url=/moved"></head></html>`, "/moved"},
		{`<html><head><META HTTP-EQUIV=Refresh CONTENT="2;URL=/b"></head></html>`, "/b"},
		{`<noscript><meta http-equiv="refresh" content="0; url=/nojs"></noscript><p>x</p>`, ""},
		{`<script>var s = '<meta http-equiv="refresh" content="0; url=/js">';</script>`, ""},
		{`<meta http-equiv="refresh" content="30">`, ""},
		{`<meta name="refresh" content="0; url=/x">`, ""},
	}
	for _, tt := range tests {
		_, u, _ := findMetaRefresh([]byte(tt.page))
		if u != tt.url {
			t.Errorf("findMetaRefresh(%q) = %q, want %q", tt.page, u, tt.url)
		}
	}
}

// FuzzParseRefresh: what it accepts has a URL and a delay of 0 or more.
func FuzzParseRefresh(f *testing.F) {
	for _, s := range []string{"5; url=/next", "0;URL='x'", "1.5, y", "10", ";;", "9999999999999; url=a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		wait, u, ok := parseRefresh(s)
		if ok && (u == "" || wait < 0) || !ok && (u != "" || wait != 0) {
			t.Fatalf("parseRefresh(%q) = %s %q %v", s, wait, u, ok)
		}
		findMetaRefresh([]byte(`<meta http-equiv="refresh" content="` + s + `">`))
	})
}

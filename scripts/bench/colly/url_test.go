package main

import "testing"

func TestCanonical(t *testing.T) {
	for in, want := range map[string]string{
		"http://h/a/#top":             "http://h/a/",
		"http://h/a?b=2&a=1#x":        "http://h/a?a=1&b=2",
		"https://h/p/7":               "https://h/p/7",
		"mailto:someone@example.com":  "",
		"javascript:void(0)":          "",
		"http://h/q?z=%2F&a=1&a=0":    "http://h/q?a=0&a=1&z=%2F",
		"http://h/catalogue/x_1/#rev": "http://h/catalogue/x_1/",
	} {
		if got, _ := canonical(in); got != want {
			t.Errorf("canonical(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseRefresh(t *testing.T) {
	for _, tc := range []struct {
		in    string
		delay float64
		url   string
		ok    bool
	}{
		{"0; url=/catalogue/x_1/", 0, "/catalogue/x_1/", true},
		{"0;URL='../p/3'", 0, "../p/3", true},
		{"5, url=next.html", 5, "next.html", true},
		{"3", 3, "", false},
		{"soon; url=x", 0, "", false},
	} {
		delay, url, ok := parseRefresh(tc.in)
		if delay != tc.delay || url != tc.url || ok != tc.ok {
			t.Errorf("parseRefresh(%q) = %v, %q, %v; want %v, %q, %v", tc.in, delay, url, ok, tc.delay, tc.url, tc.ok)
		}
	}
}

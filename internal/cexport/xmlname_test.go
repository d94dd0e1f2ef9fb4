package cexport

import (
	"encoding/xml"
	"strings"
	"testing"
)

func TestXMLName(t *testing.T) {
	tests := []struct {
		key, want string
		changed   bool
	}{
		{"name", "name", false},
		{"Price_2", "Price_2", false},
		{"ok-name.x", "ok-name.x", false},
		{"prix_été", "prix_été", false},
		{"日本", "日本", false},
		{"1st", "_1st", true},
		{"-x", "_-x", true},
		{".x", "_.x", true},
		{"a b", "a_b", true},
		{"a:b", "a_b", true},
		{" x", "_x", true},
		{"", "_", true},
		{"a\xffb", "a_b", true},
		{"a😀", "a_", true},
		{"x<y>&'\"", "x_y____", true},
	}
	for _, tt := range tests {
		got, changed := xmlName(tt.key)
		if got != tt.want || changed != tt.changed {
			t.Errorf("xmlName(%q) = %q, %v; want %q, %v", tt.key, got, changed, tt.want, tt.changed)
		}
		if !xmlParses("<" + got + "/>") {
			t.Errorf("xmlName(%q) = %q, which encoding/xml refuses", tt.key, got)
		}
	}
}

func TestAppendXMLText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"a<b>&c", "a&lt;b&gt;&amp;c"},
		{`"q" 'a'`, `"q" 'a'`},
		{"a\r\nb\tc", "a&#xD;&#xA;b\tc"},
		{"x\x00y\x1fz\ufffe", "x\uFFFDy\uFFFDz\uFFFD"},
		{"bad \xff utf8", "bad \uFFFD utf8"},
		{"日本 😀", "日本 😀"},
	}
	for _, tt := range tests {
		got := string(appendXMLText(nil, tt.in))
		if got != tt.want {
			t.Errorf("appendXMLText(%q) = %q, want %q", tt.in, got, tt.want)
		}
		var v struct {
			Text string `xml:",chardata"`
		}
		if err := xml.Unmarshal([]byte("<a>"+got+"</a>"), &v); err != nil {
			t.Errorf("%q: not well-formed: %v", got, err)
		} else if want := strings.ToValidUTF8(tt.in, "\uFFFD"); v.Text != want && !strings.ContainsRune(got, '\uFFFD') {
			t.Errorf("%q reads back as %q, want %q", got, v.Text, want)
		}
	}
}

package fingerprint

import "testing"

// TestOnDomain: Scrapy's allowed_domains rule, with IDN domains matched in
// both the forms a host comes in (IDNA 2003 from a URL written in Unicode,
// UTS #46 from a link cextract resolved).
func TestOnDomain(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		host    string
		domains []string
		want    bool
	}{
		{"a.test", []string{"a.test"}, true},
		{"www.a.test", []string{"a.test"}, true},
		{"ba.test", []string{"a.test"}, false},
		{"a.test", []string{" A.Test "}, true},
		{"", []string{"a.test"}, false},
		{"a.test", nil, false},
		// straße.test: UTS #46 keeps ß (the link cextract writes), IDNA
		// 2003 maps it to ss (a seed written in Unicode).
		{"xn--strae-oqa.test", []string{"straße.test"}, true},
		{"www.xn--strae-oqa.test", []string{"straße.test"}, true},
		{"strasse.test", []string{"straße.test"}, true},
		{"xn--strae-oqa.test", []string{"xn--strae-oqa.test"}, true},
		{"xn--bcher-kva.example", []string{"bücher.example"}, true},
		{"xn--bcher-kva.example", []string{"BÜCHER.example"}, true},
		{"buecher.example", []string{"bücher.example"}, false},
		{"xn--strae-oqa.test.evil", []string{"straße.test"}, false},
	} {
		if got := OnDomain(tc.host, tc.domains); got != tc.want {
			t.Errorf("OnDomain(%q, %q) = %v, want %v", tc.host, tc.domains, got, tc.want)
		}
	}
}

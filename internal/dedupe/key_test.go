package dedupe

import (
	"testing"

	"github.com/crawlutils/crawlutils/internal/fingerprint"
)

func TestRequestKey(t *testing.T) {
	a, err := RequestKey("GET", "http://Example.com/p?b=2&a=1#x", "", false)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := RequestKey("", "http://example.com/p?a=1&b=2", "", false)
	if a != b || a.Scrapy {
		t.Errorf("equivalent URLs: %v, %v", a, b)
	}
	s, err := RequestKey("GET", "http://www.example.com/", "", true)
	if err != nil || !s.Scrapy || s.String() != "28fd680a059847ede1289d72f7a0e1c470f3d8d2" {
		t.Errorf("Scrapy key = %v, %v", s, err)
	}
	if _, err := RequestKey("GET", "http://a:99999/", "", false); err == nil {
		t.Error("a bad port was accepted")
	}
	if k := KeyOf([]byte("x")); k == KeyOf([]byte("y")) || k.Scrapy {
		t.Error("KeyOf")
	}
	if a.Host != "example.com" || s.Host != "www.example.com" {
		t.Errorf("hosts %q, %q; want example.com, www.example.com", a.Host, s.Host)
	}
	if fp, _ := fingerprint.Scrapy("GET", "http://www.example.com/", ""); s.SHA1 != fp {
		t.Errorf("Scrapy key %v, fingerprint.Scrapy %x", s, fp)
	}
	for _, k := range []Key{HashKey(42), s} {
		back, err := keyFromMember(k.Member())
		k.Host = "" // not stored
		if err != nil || back != k {
			t.Errorf("member round trip of %v = %v, %v", k, back, err)
		}
	}
}

// TestKeyGroups: a fast request key is in its host's group, whatever the
// spelling of the URL; Scrapy and item keys have none.
func TestKeyGroups(t *testing.T) {
	a, _ := RequestKey("GET", "http://Shop.example.com/a", "", false)
	b, _ := RequestKey("GET", "http://shop.example.com/b?x=1", "", false)
	c, _ := RequestKey("GET", "http://other.example.com/a", "", false)
	if a.Group != GroupOf("shop.example.com") || b.Group != a.Group || c.Group == a.Group {
		t.Errorf("groups: %d %d %d, want %d %d and another", a.Group, b.Group, c.Group, GroupOf("shop.example.com"), a.Group)
	}
	s, _ := RequestKey("GET", "http://shop.example.com/a", "", true)
	if s.Group != 0 || KeyOf([]byte("x")).Group != 0 {
		t.Errorf("Scrapy key group %d, item key group %d; want 0", s.Group, KeyOf([]byte("x")).Group)
	}
}

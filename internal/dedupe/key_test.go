package dedupe

import "testing"

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
	for _, k := range []Key{HashKey(42), s} {
		back, err := keyFromMember(k.Member())
		if err != nil || back != k {
			t.Errorf("member round trip of %v = %v, %v", k, back, err)
		}
	}
}

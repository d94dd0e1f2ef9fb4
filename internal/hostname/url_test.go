package hostname

import (
	"net/url"
	"strings"
	"testing"
)

func TestSetHost(t *testing.T) {
	for _, tt := range []struct{ in, want, err string }{
		{"http://shop.test/a", "shop.test", ""},
		{"http://SHOP.Test/a", "shop.test", ""},
		{"http://shop.test:80/a", "shop.test", ""},
		{"http://shop.test:080/a", "shop.test", ""},
		{"http://shop.test:/a", "shop.test", ""},
		{"https://shop.test:443/a", "shop.test", ""},
		{"https://shop.test:80/a", "shop.test:80", ""},
		{"http://shop.test:443/a", "shop.test:443", ""},
		{"http://shop.test:08080/a", "shop.test:8080", ""},
		{"http://shop.test:0/a", "shop.test:0", ""},
		{"http://shop.test:65536/a", "", "port 65536 is out of range (0-65535)"},
		{"http://shop.test:0000000065536/", "", "port 0000000065536 is out of range"},
		{"http://user:pw@Shop.test:80/a", "shop.test", ""},
		{"http://shop.test./a", "shop.test.", ""}, // as browsers: the URL keeps its dot
		{"http://bücher.test:8080/", "xn--bcher-kva.test:8080", ""},
		{"http://shop。test/", "shop.test", ""},
		{"http://[::FFFF:7F00:1]:80/", "[::ffff:7f00:1]", ""},
		{"http://[fe80::1%25Eth0]:8080/", "[fe80::1%Eth0]:8080", ""}, // an interface name is as written
		{"http://a\"b.test/", "", "invalid host"},
		{"http://:80/", "", "no host"},
		{"http://bad\u200e.test/", "", "idna"},
		// An IPv4 address as browsers read it (WHATWG URL).
		{"http://127.1/", "127.0.0.1", ""},
		{"http://0x7F.1:8080/", "127.0.0.1:8080", ""},
		{"http://2130706433/", "127.0.0.1", ""},
		{"http://0177.0.0.1/", "127.0.0.1", ""},
		{"http://127.0.0.1./", "127.0.0.1", ""},
		{"http://１２７.０.０.１/", "127.0.0.1", ""},
		{"http://127.0.0.1.example/", "127.0.0.1.example", ""},
		{"http://1.2.3.4.5/", "", "invalid IPv4 host"},
		{"http://example.123/", "", "invalid IPv4 host"},
		{"http://4294967296/", "", "invalid IPv4 host"},
	} {
		u, err := url.Parse(tt.in)
		if err != nil {
			t.Fatalf("url.Parse(%q): %v", tt.in, err)
		}
		before := u.Host
		err = SetHost(u)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("SetHost(%q): host %q, %v; want an error with %q", tt.in, u.Host, err, tt.err)
			} else if u.Host != before {
				t.Errorf("SetHost(%q) failed but changed the host to %q", tt.in, u.Host)
			}
			continue
		}
		if err != nil || u.Host != tt.want {
			t.Errorf("SetHost(%q): host %q, %v; want %q", tt.in, u.Host, err, tt.want)
		}
	}
}

// FuzzSetHost: what SetHost writes, url.Parse reads back as the same
// host, and SetHost leaves as it is.
func FuzzSetHost(f *testing.F) {
	for _, s := range []string{"http://shop.test:080/", "https://SHOP.test:443/", "http://[::1%25eth0]:80/", "http://bücher.test/", "http://h:/", "http://a^b/", "http://[::1]:0099999/", "http://0x7f.1/", "http://1.2.3.4.5/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := url.Parse(s)
		if err != nil || u.Host == "" {
			return
		}
		if SetHost(u) != nil {
			return
		}
		v, err := url.Parse(u.String())
		if err != nil {
			t.Fatalf("SetHost(%q) wrote %q, which url.Parse refuses: %v", s, u.String(), err)
		}
		if v.Host != u.Host {
			t.Fatalf("SetHost(%q) wrote host %q, read back as %q", s, u.Host, v.Host)
		}
		h := v.Host
		if err := SetHost(v); err != nil || v.Host != h {
			t.Fatalf("SetHost(%q) = %q, then %q, %v", s, h, v.Host, err)
		}
	})
}

func TestKey(t *testing.T) {
	for in, want := range map[string]string{
		"shop.test": "shop.test", "shop.test.": "shop.test", "xn--bcher-kva.test.": "xn--bcher-kva.test",
		".": ".", "": "", "::1": "::1", "shop.test..": "shop.test.",
	} {
		if got := Key(in); got != want {
			t.Errorf("Key(%q) = %q; want %q", in, got, want)
		}
	}
}

// BenchmarkSetHost is SetHost on a link's usual host, a name, and on an
// IPv4 address.
func BenchmarkSetHost(b *testing.B) {
	for _, s := range []string{"https://shop1.example.com/catalogue/page-1.html", "http://127.0.0.1:8080/a"} {
		u, err := url.Parse(s)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(u.Hostname(), func(b *testing.B) {
			for b.Loop() {
				v := *u
				if err := SetHost(&v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

package cfetch

import (
	"net/url"
	"testing"
)

// TestRenderCheck: the requests a rendered page makes are judged by the
// address policy of cfetch's own requests (robots.txt is left to the
// browser tests: it needs a server).
func TestRenderCheck(t *testing.T) {
	opts := DefaultOptions()
	opts.RobotsObey = false
	f, err := NewFetcher(&opts)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mustURL := func(s string) *url.URL {
		if s == "" {
			return nil
		}
		u, err := url.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	for _, c := range []struct {
		name          string
		pageInternal  bool
		u, from, want string
		main          bool
	}{
		{"the page itself, a seed on loopback", true, "http://127.0.0.1:8080/", "", "", true},
		{"a loopback page's XHR to loopback", true, "http://127.0.0.1:8080/api", "http://127.0.0.1:8080/", "", false},
		{"a public page's XHR to a private address", false, "http://10.0.0.5/api", "https://public.example/", ErrPrivateAddress, false},
		{"a public page's XHR to the metadata service", false, "http://169.254.169.254/latest/", "https://public.example/", ErrPrivateAddress, false},
		{"a public page's redirect to localhost", false, "http://localhost/admin", "https://public.example/", ErrPrivateAddress, true},
		{"a public page's XHR to another public address", false, "http://93.184.215.14/x", "https://public.example/", "", false},
	} {
		j := &job{internalOK: c.pageInternal}
		got := f.renderCheck(j)(mustURL(c.u), mustURL(c.from), c.main)
		switch {
		case c.want == "" && got != nil:
			t.Errorf("%s: refused %+v", c.name, got)
		case c.want != "" && (got == nil || got.Code != c.want):
			t.Errorf("%s: %+v, want %s", c.name, got, c.want)
		}
	}
}

func TestHostRules(t *testing.T) {
	got := hostRules(map[string][]string{
		resolveKey("shop.test", "80"):   {"127.0.0.1"},
		resolveKey("shop.test", "8080"): {"127.0.0.2"},
		resolveKey("*", "443"):          {"::1", "127.0.0.1"},
	})
	if want := "MAP * [::1], MAP shop.test 127.0.0.1"; got != want {
		t.Errorf("hostRules = %q, want %q", got, want)
	}
}

package render

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseWait(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Wait
		err  string
	}{
		{"", Wait{Kind: WaitLoad}, ""},
		{"load", Wait{Kind: WaitLoad}, ""},
		{"idle", Wait{Kind: WaitIdle}, ""},
		{"css:.product", Wait{Kind: WaitSelector, Selector: ".product"}, ""},
		{"css: ul > li ", Wait{Kind: WaitSelector, Selector: "ul > li"}, ""},
		{"2s", Wait{Kind: WaitTime, Duration: 2 * time.Second}, ""},
		{"css:", Wait{}, "needs a selector"},
		{"-1s", Wait{}, "want load, idle"},
		{"soon", Wait{}, "want load, idle, css:SELECTOR or a duration"},
	} {
		got, err := ParseWait(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseWait(%q) error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ParseWait(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
		if again, err := ParseWait(got.String()); err != nil || again != got {
			t.Errorf("ParseWait(%q.String()) = %+v, %v", c.in, again, err)
		}
	}
}

func TestParseBlock(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
		err  string
	}{
		{"images,fonts,media", []string{"images", "fonts", "media"}, ""},
		{"none", nil, ""},
		{"", nil, ""},
		{"images, images", []string{"images"}, ""},
		{"xhr", []string{"xhr"}, ""},
		{"pictures", nil, `unknown kind "pictures"`},
	} {
		got, err := ParseBlock(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseBlock(%q) error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("ParseBlock(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	if got := blockedTypes([]string{"images", "media"}); got["Image"] != "images" || got["Media"] != "media" || got["Font"] != "" {
		t.Errorf("blockedTypes = %v", got)
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		change func(*Options)
		err    string
	}{
		{func(o *Options) { o.Concurrency = 0 }, "--render-concurrency"},
		{func(o *Options) { o.Timeout = 0 }, "--render-timeout"},
		{func(o *Options) { o.Block = []string{"x"} }, "--render-block"},
	} {
		o := DefaultOptions()
		c.change(&o)
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("Validate() = %v, want an error naming %s", err, c.err)
		}
	}
	o := DefaultOptions()
	if err := o.Validate(); err != nil {
		t.Errorf("the defaults: %v", err)
	}
}

func TestFindBrowser(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if _, err := FindBrowser(""); err != ErrNoBrowser {
		t.Errorf("empty PATH: %v, want ErrNoBrowser", err)
	}
	if _, err := FindBrowser("/nonexistent/chromium"); err == nil || !strings.HasPrefix(err.Error(), "--browser: ") {
		t.Errorf("--browser missing: %v", err)
	}
	if _, err := FindBrowser(t.TempDir()); err == nil || !strings.Contains(err.Error(), "not an executable") {
		t.Errorf("--browser a directory: %v", err)
	}
}

func FuzzParseWait(f *testing.F) {
	for _, s := range []string{"load", "idle", "css:.product", "1500ms", "css:", "-3s", "css:a[href$='.json']"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, err := ParseWait(s)
		if err != nil {
			return
		}
		if again, err := ParseWait(w.String()); err != nil || again != w {
			t.Errorf("ParseWait(%q) = %+v, but its String %q reads back as %+v, %v", s, w, w.String(), again, err)
		}
	})
}

func FuzzParseBlock(f *testing.F) {
	for _, s := range []string{"images,fonts,media", "none", "", "xhr,other", "images,,fonts"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		kinds, err := ParseBlock(s)
		if err != nil {
			return
		}
		for _, k := range kinds {
			if _, ok := blockKinds[k]; !ok {
				t.Errorf("ParseBlock(%q) returned unknown kind %q", s, k)
			}
		}
	})
}

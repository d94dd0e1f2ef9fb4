package policy

import (
	"net/url"
	"strings"
	"testing"
)

func TestIgnoredExtensionsMatchScrapy(t *testing.T) {
	// scrapy.linkextractors.IGNORED_EXTENSIONS of Scrapy 2.11 (2.8's and
	// webp).
	const scrapy = "7z 7zip bz2 rar tar tar.gz xz zip mng pct bmp gif jpg jpeg png pst psp tif tiff ai drw dxf eps ps svg cdr ico webp " +
		"mp3 wma ogg wav ra aac mid au aiff 3gp asf asx avi mov mp4 mpg qt rm swf wmv m4a m4v flv webm xls xlsx ppt pptx pps " +
		"doc docx odt ods odg odp css pdf exe bin rss dmg iso apk"
	if got := strings.Join(IgnoredExtensions, " "); got != scrapy {
		t.Errorf("IgnoredExtensions = %s\nScrapy's: %s", got, scrapy)
	}
}

func TestExtensions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		url  string
		exts Extensions
		want string // the extension denied, "" for none
	}{
		{"http://a.test/x.pdf", DefaultExtensions, "pdf"},
		{"http://a.test/x.PDF", DefaultExtensions, "pdf"},
		{"http://a.test/x.tar.gz", DefaultExtensions, "tar.gz"},
		{"http://a.test/x.TAR.GZ", DefaultExtensions, "tar.gz"},
		{"http://a.test/x.tar.gz?download=1", DefaultExtensions, "tar.gz"},
		{"http://a.test/x.gz", DefaultExtensions, ""},
		{"http://a.test/x.webp", DefaultExtensions, "webp"},
		{"http://a.test/x.html", DefaultExtensions, ""},
		{"http://a.test/x?f=a.pdf", DefaultExtensions, ""},
		{"http://a.test/x.pdf;jsessionid=1", DefaultExtensions, "pdf"},
		{"http://a.test/x.pdf/", DefaultExtensions, ""},
		{"http://a.test/.pdf", DefaultExtensions, ""},
		{"http://a.test/x.pdf.", DefaultExtensions, ""},
		{"http://a.test/a.b.c.zip", DefaultExtensions, "zip"},
		{"http://a.test/pdf", DefaultExtensions, ""},
		{"http://a.test/x.gz", NewExtensions([]string{".GZ"}), "gz"},
		{"http://a.test/x.tar.gz", NewExtensions([]string{"gz"}), "gz"},
		{"http://a.test/x.pdf", NewExtensions([]string{}), ""},
		{"http://a.test/x.pdf", nil, ""},
		{"http://a.test/x.pdf", NewExtensions([]string{" ", ""}), ""},
	} {
		u, err := url.Parse(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := tc.exts.Match(u)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("Match(%s) = %q, %v; want %q", tc.url, got, ok, tc.want)
		}
	}
}

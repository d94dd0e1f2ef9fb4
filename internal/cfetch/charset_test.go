package cfetch

import (
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"

	"github.com/crawlutils/crawlutils/internal/ascii"
)

// TestMediaTypeOfRepeatedHeaders: a server that sends two Content-Type
// headers (its default and the page's own) is read as browsers and Scrapy
// read it: the last one counts.
func TestMediaTypeOfRepeatedHeaders(t *testing.T) {
	tests := []struct {
		values         []string
		media, charset string
	}{
		{[]string{"text/html; charset=utf-8", "text/html; charset=windows-1251"}, "text/html", "windows-1251"},
		{[]string{"text/html", "text/html; charset=windows-1251"}, "text/html", "windows-1251"},
		{[]string{"text/html; charset=windows-1251", "text/html"}, "text/html", "windows-1251"},
		{[]string{"application/octet-stream", "text/html; charset=euc-kr"}, "text/html", "euc-kr"},
		{[]string{"text/html, text/html; charset=koi8-r"}, "text/html", "koi8-r"},
		{[]string{"text/html; charset=shift_jis", "nonsense"}, "text/html", "shift_jis"},
	}
	for _, tt := range tests {
		h := http.Header{"Content-Type": tt.values}
		media, cs, sniffed := mediaTypeOf(h, []byte("<p>x</p>"))
		if media != tt.media || cs != tt.charset || sniffed {
			t.Errorf("mediaTypeOf(%q) = %q, %q, %v; want %q, %q", tt.values, media, cs, sniffed, tt.media, tt.charset)
		}
	}
}

func TestIsTextMedia(t *testing.T) {
	for media, want := range map[string]bool{
		"text/html": true, "text/plain": true, "text/csv": true, "application/json": true,
		"application/ld+json": true, "application/rss+xml": true, "image/svg+xml": true,
		"application/javascript": true, "application/xml": true, "application/xhtml+xml": true,
		"image/png": false, "application/pdf": false, "application/octet-stream": false, "": false,
		"application/zip": false, "font/woff2": false,
	} {
		if got := isTextMedia(media); got != want {
			t.Errorf("isTextMedia(%q) = %v", media, got)
		}
	}
}

func TestPrescanCharset(t *testing.T) {
	tests := []struct {
		in, want string
		unknown  []string
	}{
		{`<meta charset="utf-8">`, "utf-8", nil},
		{`<META CHARSET=Shift_JIS>`, "Shift_JIS", nil},
		{`<meta http-equiv="Content-Type" content="text/html; charset=euc-kr">`, "euc-kr", nil},
		{`<meta content="text/html; charset='koi8-r'" http-equiv=content-type>`, "koi8-r", nil},
		{`<meta content="text/html; charset=koi8-r">`, "", nil}, // no http-equiv: not a declaration
		{`<meta charset="x-nonexistent"><meta charset="big5">`, "big5", []string{"x-nonexistent"}},
		{`<!-- <meta charset="gbk"> --><p>`, "", nil},
		{`<html><head><title>t</title>`, "", nil},
		{`plain text`, "", nil},
		{`<meta charset="utf-8" charset="latin1">`, "utf-8", nil},
	}
	for _, tt := range tests {
		got, unknown := prescanCharset([]byte(tt.in))
		if got != tt.want || strings.Join(unknown, ",") != strings.Join(tt.unknown, ",") {
			t.Errorf("prescanCharset(%q) = %q %v, want %q %v", tt.in, got, unknown, tt.want, tt.unknown)
		}
	}
}

func TestXMLDeclEncoding(t *testing.T) {
	for in, want := range map[string]string{
		`<?xml version="1.0" encoding="Shift_JIS"?><a/>`:    "Shift_JIS",
		"\n <?xml version='1.0' encoding = 'euc-kr' ?><a/>": "euc-kr",
		`<?xml version="1.0"?><a encoding="x"/>`:            "",
		`<?xml version="1.0" encoding=utf-8?>`:              "",
		`<?xml version="1.0" encoding="utf-8"`:              "",
		`<a/>`:                                              "",
	} {
		if got := xmlDeclEncoding([]byte(in)); got != want {
			t.Errorf("xmlDeclEncoding(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDecideCharset(t *testing.T) {
	zh := "这是一个简体中文的网页。我们使用国标编码来测试字符集检测功能是否正常工作。"
	tw := "這是一個繁體中文的網頁。我們使用大五碼來測試字元集偵測功能是否正常運作。"
	ru := "Это страница на русском языке. Мы проверяем определение кодировки текста."
	tests := []struct {
		name, header string
		body         []byte
		html         bool
		text         string
		enc, source  string
		warning      string
	}{
		{"header", "utf-8", []byte("<p>héllo</p>"), true, "héllo", "utf-8", SourceHeader, ""},
		{"header latin1 is windows-1252", "iso-8859-1", []byte("<p>caf\xe9 \x93q\x94</p>"), true, "café “q”", "windows-1252", SourceHeader, ""},
		{"header beats meta", "utf-8", []byte(`<meta charset="shift_jis"><p>é</p>`), true, "é", "utf-8", SourceHeader, ""},
		// The Encoding Standard's gbk decoder is gb18030's: a page labelled
		// gb2312 or gbk that holds a four-byte sequence (an emoji, a
		// Mongolian or Uyghur letter) reads in browsers as it was written.
		{"header gb2312 with gb18030 four-byte sequences", "gb2312", encode(simplifiedchinese.GB18030, "<p>中文 😀 ᠠ ½ €</p>"), true, "中文 😀 ᠠ ½ €", "gbk", SourceHeader, ""},
		{"meta gbk with gb18030 four-byte sequences", "", encode(simplifiedchinese.GB18030, `<meta charset="gbk"><p>中文 😀</p>`), true, "中文 😀", "gbk", SourceMeta, ""},
		{"utf-8 BOM beats the header", "shift_jis", []byte("\xef\xbb\xbf<p>é</p>"), true, "<p>é</p>", "utf-8", SourceBOM, ""},
		{"utf-16be BOM", "", []byte("\xfe\xff\x00h\x00\xe9"), false, "hé", "utf-16be", SourceBOM, ""},
		{"meta", "", encode(japanese.ShiftJIS, `<meta charset="shift_jis"><p>`+japaneseText), true, japaneseText, "shift_jis", SourceMeta, ""},
		{"meta x-user-defined means windows-1252", "", []byte(`<meta charset="x-user-defined"><p>caf` + "\xe9</p>"), true, "café", "windows-1252", SourceMeta, ""},
		{"header x-user-defined", "x-user-defined", []byte("<p>caf\xe9</p>"), true, "caf\uf7e9", "x-user-defined", SourceHeader, ""},
		{"meta utf-16 means utf-8", "", []byte(`<meta charset="utf-16"><p>é</p>`), true, "é", "utf-8", SourceMeta, ""},
		{"xml declaration", "", encode(korean.EUCKR, `<?xml version="1.0" encoding="EUC-KR"?><rss>`+koreanText+`</rss>`), false, koreanText, "euc-kr", SourceMeta, ""},
		{"unknown header charset, meta used", "x-nonexistent", encode(charmap.Windows1252, `<meta charset="windows-1252"><p>`+frenchText), true, frenchText, "windows-1252", SourceMeta, `unknown charset "x-nonexistent"`},
		{"unknown header charset, sniffed", "x-nonexistent", encode(japanese.ShiftJIS, "<p>"+japaneseText+"</p>"), true, japaneseText, "shift_jis", SourceSniff, `unknown charset "x-nonexistent"`},
		{"replacement encoding is unknown", "iso-2022-kr", []byte("<p>abc</p>"), true, "abc", "utf-8", SourceDefault, `unknown charset "iso-2022-kr"`},
		{"unknown meta charset", "", []byte(`<meta charset="klingon"><p>abc</p>`), true, "abc", "utf-8", SourceDefault, `unknown charset "klingon"`},
		{"sniff shift_jis", "", encode(japanese.ShiftJIS, "<p>"+japaneseText+"</p>"), true, japaneseText, "shift_jis", SourceSniff, ""},
		{"sniff euc-jp", "", encode(japanese.EUCJP, "<p>"+japaneseText+"</p>"), true, japaneseText, "euc-jp", SourceSniff, ""},
		{"sniff euc-kr", "", encode(korean.EUCKR, "<p>"+koreanText+"</p>"), true, koreanText, "euc-kr", SourceSniff, ""},
		{"sniff gbk as gb18030", "", encode(simplifiedchinese.GBK, "<p>"+zh+"</p>"), true, zh, "gb18030", SourceSniff, ""},
		{"sniff big5", "", encode(traditionalchinese.Big5, "<p>"+tw+"</p>"), true, tw, "big5", SourceSniff, ""},
		{"sniff windows-1251", "", encode(charmap.Windows1251, "<p>"+ru+"</p>"), true, ru, "windows-1251", SourceSniff, ""},
		{"sniff windows-874", "", encode(charmap.Windows874, "<p>"+thaiShop+"</p>"), true, thaiShop, "windows-874", SourceSniff, ""},
		{"meta tis-620 is windows-874", "", encode(charmap.Windows874, `<meta charset="TIS-620"><p>`+thaiCity), true, thaiCity, "windows-874", SourceMeta, ""},
		{"meta iso-8859-11 is windows-874", "", encode(charmap.Windows874, `<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-11"><p>`+thaiHours), true, thaiHours, "windows-874", SourceMeta, ""},
		{"meta windows-874", "", encode(charmap.Windows874, `<meta charset=windows-874><p>`+thaiShop), true, thaiShop, "windows-874", SourceMeta, ""},
		{"header tis-620 is windows-874", "tis-620", encode(charmap.Windows874, "<p>"+thaiShop+"</p>"), true, thaiShop, "windows-874", SourceHeader, ""},
		// A declaration past the first 1024 bytes still counts while only
		// elements of a <head> came before it, as in Chrome (and Firefox,
		// which reloads the page): "café" would read "cafй" as declared.
		{"meta late in a long head", "", []byte("<html><head><title>t</title><!-- " + strings.Repeat("x", 1100) + ` --><script>var a = "<div>";</script><link rel=stylesheet href=a.css><meta name=keywords content=k><meta charset="windows-1251"></head><body><p>caf` + "\xe9</p>"), true, "caf\u0439", "windows-1251", SourceMeta, ""},
		{"meta late in a long title", "", []byte("<html><head><title>" + strings.Repeat("t", 1100) + `</title><meta http-equiv="Content-Type" content="text/html; charset=windows-1251"></head><p>caf` + "\xe9</p>"), true, "caf\u0439", "windows-1251", SourceMeta, ""},
		{"meta past 1024 bytes after the head ended", "", []byte("<html><head><title>t</title></head><body><div><!-- " + strings.Repeat("x", 1100) + ` --><meta charset="windows-1251"><p>caf` + "\xe9 cr\xe8me br\xfbl\xe9e</p>"), true, "caf\u00e9", "windows-1252", SourceSniff, ""},
		{"meta past 1024 bytes after </head>", "", []byte("<html><head><title>t</title><!-- " + strings.Repeat("x", 1100) + ` --></head><meta charset="windows-1251"><p>caf` + "\xe9 cr\xe8me br\xfbl\xe9e</p>"), true, "caf\u00e9", "windows-1252", SourceSniff, ""},
		{"meta in the body in the first 1024 bytes", "", []byte(`<html><head><title>t</title></head><body><div><meta charset="windows-1251"><p>caf` + "\xe9</p>"), true, "caf\u0439", "windows-1251", SourceMeta, ""},
		{"sniff utf-8", "", []byte("<p>" + japaneseText + "</p>"), true, japaneseText, "utf-8", SourceSniff, ""},
		{"ascii defaults to utf-8", "", []byte("<p>plain</p>"), true, "plain", "utf-8", SourceDefault, ""},
		{"low confidence defaults to windows-1252", "", []byte("x\x80\x81\xfe\xff"), false, "x€\ufffdþÿ", "windows-1252", SourceDefault, ""},
		{"invalid bytes become U+FFFD", "utf-8", []byte("a\xffb"), false, "a\ufffdb", "utf-8", SourceHeader, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := decideCharset(tt.body, tt.header, tt.html, false)
			text := string(decodeText(d, tt.body))
			if !strings.Contains(text, tt.text) || d.name != tt.enc || d.source != tt.source {
				t.Errorf("got %q in %s (%s), want %q in %s (%s)", text, d.name, d.source, tt.text, tt.enc, tt.source)
			}
			if w := strings.Join(d.warnings, "; "); w != tt.warning {
				t.Errorf("warnings %q, want %q", w, tt.warning)
			}
		})
	}
}

// FuzzDecideCharset: whatever the bytes and the declarations, the body comes
// out as valid UTF-8 and the decision is one of the documented sources.
// TestDecideCharsetXML: an XML document's own declaration is its charset,
// as XML parsers (lxml, browsers' XML parsers) read it: a <meta> in the
// markup of an XHTML page, or in a feed's HTML content, does not count. In
// text/html, the <meta> wins, as in Chrome.
func TestDecideCharsetXML(t *testing.T) {
	xhtml := []byte(`<?xml version="1.0" encoding="windows-1251"?><html xmlns="http://www.w3.org/1999/xhtml"><head><meta charset="iso-8859-2"/></head><body><p>caf` + "\xe9</p></body></html>")
	feed := []byte(`<?xml version="1.0" encoding="windows-1251"?><rss><channel><item><description><![CDATA[<div><meta charset="utf-8"></div>]]></description><title>caf` + "\xe9</title></item></channel></rss>")
	tests := []struct {
		name          string
		body          []byte
		isHTML, isXML bool
		text, enc     string
	}{
		{"xhtml", xhtml, true, true, "caf\u0439", "windows-1251"},
		{"feed", feed, false, true, "caf\u0439", "windows-1251"},
		{"the same page as text/html", xhtml, true, false, "caf\u00e9", "iso-8859-2"},
	}
	for _, tt := range tests {
		d := decideCharset(tt.body, "", tt.isHTML, tt.isXML)
		text := string(decodeText(d, tt.body))
		if !strings.Contains(text, tt.text) || d.name != tt.enc || d.source != SourceMeta {
			t.Errorf("%s: got %q in %s (%s), want %q in %s (meta)", tt.name, text, d.name, d.source, tt.text, tt.enc)
		}
	}
}

func FuzzDecideCharset(f *testing.F) {
	f.Add([]byte(`<meta charset="shift_jis">`+"\x93\xfa\x96{"), "", true)
	f.Add([]byte("\xff\xfeh\x00"), "utf-8", false)
	f.Add([]byte(`<?xml version="1.0" encoding="euc-kr"?>`), "", false)
	f.Add([]byte(`<meta http-equiv=content-type content="charset=utf-16">`), "x", true)
	f.Add(encode(japanese.ShiftJIS, japaneseText), "", true)
	f.Add([]byte("\xfe\xff\xd8"), "", false)
	f.Fuzz(func(t *testing.T, body []byte, header string, html bool) {
		d := decideCharset(body, header, html, len(body)%2 == 0)
		switch d.source {
		case SourceHeader, SourceBOM, SourceMeta, SourceSniff, SourceDefault:
		default:
			t.Fatalf("source %q", d.source)
		}
		if d.name == "" || d.enc == nil {
			t.Fatalf("no encoding: %+v", d)
		}
		if s := string(decodeText(d, body)); !utf8.ValidString(s) {
			t.Fatalf("not UTF-8: %q", s)
		}
	})
}

// FuzzPrescan: the meta and XML-declaration scanners never panic and only
// return labels that occur in the input.
func FuzzPrescan(f *testing.F) {
	for _, s := range []string{
		`<meta charset="utf-8">`, `<meta http-equiv="Content-Type" content="text/html; charset=euc-kr">`,
		`<?xml version="1.0" encoding="Shift_JIS"?>`, `<meta content="charset='x` + "\x00", `<?xml encoding=`,
		`<meta charset=">`, "<meta\x00charset=a>",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		label, unknown := prescanCharset(b)
		// The tokenizer reads a NUL in an attribute as U+FFFD, as HTML does.
		lower := strings.ReplaceAll(ascii.Lower(string(b)), "\x00", "\uFFFD")
		for _, l := range append(unknown, label) {
			if l != "" && !strings.Contains(lower, ascii.Lower(l)) && utf8.Valid(b) {
				t.Fatalf("label %q not in input %q", l, b)
			}
		}
		if x := xmlDeclEncoding(b); x != "" && !strings.Contains(string(b), x) {
			t.Fatalf("xml encoding %q not in input %q", x, b)
		}
		charsetFromContent(string(b))
	})
}

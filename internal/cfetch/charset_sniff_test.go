package cfetch

import (
	"math"
	"strings"
	"testing"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
)

// Paragraphs the sniffing cases carry, as they must come out in UTF-8.
const (
	russianLong = "Съешь же ещё этих мягких французских булок, да выпей чаю. " +
		"Широкая электрификация южных губерний даст мощный толчок подъёму сельского хозяйства."
	russianShort = "Это страница на русском языке. Мы проверяем определение кодировки текста."
	russianLower = "съешь же ещё этих мягких французских булок, да выпей чаю."
	ukrainian    = "Чуєш їх, доцю, га? Кумедна ж ти, прощайся без ґольфів! " +
		"Українська мова належить до східнослов'янської групи слов'янських мов."
	polish = "Zażółć gęślą jaźń. Pchnąć w tę łódź jeża lub ośm skrzyń fig. " +
		"Właściwie każdy z nas może się tego nauczyć, jeśli tylko będzie ćwiczył codziennie."
	czech = "Příliš žluťoučký kůň úpěl ďábelské ódy. Čeština je západoslovanský jazyk, " +
		"nejbližší slovenštině, poté polštině a lužické srbštině."
	german = "Falsches Üben von Xylophonmusik quält jeden größeren Zwerg. " +
		"Die Straße führt über die Brücke zum Rathaus, wo sich täglich viele Bürger treffen."
	spanish = "El pingüino Wenceslao hizo kilómetros bajo exhaustiva lluvia y frío, " +
		"añoraba a su querido cachorro. ¿Dónde está la estación? ¡Qué día tan bonito!"
	frenchLong = "Le cœur a ses raisons que la raison ne connaît point. L’été dernier, " +
		"nous sommes allés à la plage près de Saint-Tropez ; c’était « très agréable », même si la mer était froide… 20 € le transat."
	greek = "Ξεσκεπάζω την ψυχοφθόρα βδελυγμία. Η ελληνική γλώσσα είναι μία από τις " +
		"αρχαιότερες γλώσσες του κόσμου, με γραπτή ιστορία τριών χιλιάδων ετών."
	hebrew = "דג סקרן שט בים מאוכזב ולפתע מצא חברה. השפה העברית היא שפה שמית, " +
		"והיא שפתה הרשמית של מדינת ישראל."
	turkish = "Pijamalı hasta yağız şoföre çabucak güvendi. Türkçe, Türk dilleri ailesine ait " +
		"bir dildir ve yaklaşık seksen milyon kişi tarafından konuşulur."
	arabic        = "اللغة العربية هي أكثر اللغات السامية تحدثًا، وإحدى أكثر اللغات انتشاراً في العالم."
	germanUnits   = "Das Becken fasst 3 m³ Wasser, die Fläche beträgt 12 m² – größer als gedacht."
	japaneseShort = "東京の風鈴"
	chineseSimp   = "这是一个简体中文的网页。我们使用国标编码来测试字符集检测功能是否正常工作。"
	chineseTrad   = "這是一個繁體中文的網頁。我們使用大五碼來測試字元集偵測功能是否正常運作。"
	// A shop's product page, a city guide and a shop's opening hours:
	// Thai is written without spaces between words, with spaces between
	// phrases.
	thaiShop = "เสื้อยืดผ้าฝ้ายแท้ 100% เนื้อผ้านุ่ม ใส่สบาย ระบายอากาศได้ดี เหมาะสำหรับอากาศร้อนในประเทศไทย " +
		"มีให้เลือกหลายสี ทั้งสีขาว สีดำ และสีน้ำเงิน ซักเครื่องได้โดยไม่ย้วย ราคา 290 บาท " +
		"จัดส่งจากกรุงเทพฯ ภายใน 1-2 วันทำการ มีสินค้าใหม่ๆ ทุกสัปดาห์"
	thaiCity = "กรุงเทพมหานครเป็นเมืองหลวงของประเทศไทย มีประชากรมากกว่าสิบล้านคน " +
		"นักท่องเที่ยวจากทั่วโลกนิยมมาเที่ยวชมวัดพระแก้ว พระบรมมหาราชวัง และตลาดน้ำ " +
		"อาหารไทยขึ้นชื่อเรื่องรสชาติจัดจ้าน เช่น ต้มยำกุ้ง ส้มตำ ก๋วยเตี๋ยว และผัดไทย"
	thaiHours = "ร้านเปิดทุกวันจันทร์ถึงวันศุกร์ เวลา 09.00–18.00 น. ช่วงฤดูฝนอาจมีการจัดส่งล่าช้า " +
		"ขออภัยในความไม่สะดวก สินค้าทุกชิ้นรับประกันหนึ่งปี ได้แก่ เสื้อผ้า กระเป๋า รองเท้า ฯลฯ"
)

// htmlPage is a small undeclared page: no charset in a header, a <meta> or
// a BOM.
func htmlPage(title, body string) string {
	return "<html><head><title>" + title + "</title></head><body><h1>" + body + "</h1></body></html>"
}

// TestSniffLegacyCharset: undeclared pages in legacy charsets are decoded
// in the charset they were written in, whatever chardet's confidence.
func TestSniffLegacyCharset(t *testing.T) {
	tests := []struct {
		name string
		enc  encoding.Encoding
		text string
		want string // canonical name
		html bool
	}{
		// Pages chardet guesses right at low confidence, or wrong.
		{"windows-1251 long", charmap.Windows1251, htmlPage("x", russianLong), "windows-1251", true},
		{"koi8-r long", charmap.KOI8R, htmlPage("x", russianLong), "koi8-r", true},
		{"windows-1251 long text", charmap.Windows1251, russianLong, "windows-1251", false},
		{"koi8-r long text", charmap.KOI8R, russianLong, "koi8-r", false},
		{"windows-1251 lower case only", charmap.Windows1251, russianLower, "windows-1251", false},
		{"koi8-r lower case only", charmap.KOI8R, russianLower, "koi8-r", false},
		{"ibm866", charmap.CodePage866, htmlPage("x", russianLong), "ibm866", true},
		{"iso-8859-5", charmap.ISO8859_5, htmlPage("x", russianLong), "iso-8859-5", true},
		{"windows-1251 ukrainian", charmap.Windows1251, htmlPage("x", ukrainian), "windows-1251", true},
		{"shift_jis short", japanese.ShiftJIS, htmlPage("t", japaneseShort), "shift_jis", true},
		{"windows-1250 polish", charmap.Windows1250, htmlPage("x", polish), "windows-1250", true},
		{"windows-1250 czech", charmap.Windows1250, htmlPage("x", czech), "windows-1250", true},

		// Pages chardet guesses right.
		{"windows-1251 short", charmap.Windows1251, "<p>" + russianShort + "</p>", "windows-1251", true},
		{"windows-1252 french", charmap.Windows1252, htmlPage("x", frenchLong), "windows-1252", true},
		{"windows-1252 french short", charmap.Windows1252, "<p>" + frenchText + "</p>", "windows-1252", true},
		{"windows-1252 german", charmap.Windows1252, htmlPage("x", german), "windows-1252", true},
		{"windows-1252 spanish", charmap.Windows1252, htmlPage("x", spanish), "windows-1252", true},
		{"windows-1252 superscripts", charmap.Windows1252, htmlPage("x", germanUnits), "windows-1252", true},
		{"windows-1254 turkish", charmap.Windows1254, htmlPage("x", turkish), "windows-1254", true},
		{"windows-1256 arabic", charmap.Windows1256, htmlPage("x", arabic), "windows-1256", true},
		{"iso-8859-7 greek", charmap.ISO8859_7, htmlPage("x", greek), "iso-8859-7", true},
		{"iso-8859-8 hebrew", charmap.ISO8859_8, htmlPage("x", hebrew), "iso-8859-8-i", true},
		{"shift_jis", japanese.ShiftJIS, htmlPage("t", japaneseText), "shift_jis", true},
		{"euc-jp", japanese.EUCJP, htmlPage("t", japaneseText), "euc-jp", true},
		{"euc-kr", korean.EUCKR, htmlPage("t", koreanText), "euc-kr", true},
		{"gbk", simplifiedchinese.GBK, htmlPage("t", chineseSimp), "gb18030", true},
		{"big5", traditionalchinese.Big5, htmlPage("t", chineseTrad), "big5", true},

		// Thai, which chardet does not know: windows-874 (TIS-620 and
		// ISO-8859-11 are the same bytes).
		{"windows-874 thai shop", charmap.Windows874, htmlPage("เสื้อยืด", thaiShop), "windows-874", true},
		{"windows-874 thai city", charmap.Windows874, htmlPage("x", thaiCity), "windows-874", true},
		{"windows-874 thai hours", charmap.Windows874, htmlPage("x", thaiHours), "windows-874", true},
		{"windows-874 thai text", charmap.Windows874, thaiShop, "windows-874", false},
		{"windows-874 thai title only", charmap.Windows874, htmlPage("ร้านค้าออนไลน์ สินค้าใหม่ทุกวัน", "Welcome"), "windows-874", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := encode(tt.enc, tt.text)
			d := decideCharset(body, "", tt.html, false)
			if d.name != tt.want || d.source != SourceSniff {
				t.Errorf("decided %s (%s), want %s (sniff)", d.name, d.source, tt.want)
			}
			if got := string(decodeText(d, body)); got != tt.text {
				t.Errorf("decoded\n%q\nwant\n%q", got, tt.text)
			}
		})
	}
}

// TestSniffLegacyCharsetLongPage: a long page is judged on its start, also
// when that ends inside a multibyte character.
func TestSniffLegacyCharsetLongPage(t *testing.T) {
	for _, tt := range []struct {
		enc  encoding.Encoding
		text string
		want string
	}{
		{charmap.Windows1251, russianLong, "windows-1251"},
		{charmap.KOI8R, russianLong, "koi8-r"},
		{japanese.ShiftJIS, japaneseText, "shift_jis"},
		{simplifiedchinese.GBK, chineseSimp, "gb18030"},
		{charmap.Windows1252, frenchLong, "windows-1252"},
		{charmap.Windows874, thaiCity, "windows-874"},
	} {
		for _, shift := range []int{0, 1} {
			page := strings.Repeat("x", shift) + strings.Repeat("<p>"+tt.text+"</p>\n", 2*sniffLen/len(tt.text))
			body := encode(tt.enc, page)
			if d := decideCharset(body, "", true, false); d.name != tt.want || d.source != SourceSniff {
				t.Errorf("%s page of %d bytes (shift %d): decided %s (%s)", tt.want, len(body), shift, d.name, d.source)
			}
		}
	}
}

// TestSniffDefaults: with nothing non-ASCII to go on, or nothing
// plausible, the body is windows-1252 by default.
func TestSniffDefaults(t *testing.T) {
	for _, tt := range []struct {
		name string
		body []byte
		text string
	}{
		{"control bytes", []byte("x\x80\x81\xfe\xff"), "x€\ufffdþÿ"},
		{"a lone symbol", []byte("<p>\xa9 2024 Example</p>"), "<p>© 2024 Example</p>"},
		{"an invalid byte", []byte("abc \xff def"), "abc ÿ def"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := decideCharset(tt.body, "", false, false)
			if d.name != "windows-1252" || d.source != SourceDefault {
				t.Errorf("decided %s (%s), want windows-1252 (default)", d.name, d.source)
			}
			if got := string(decodeText(d, tt.body)); got != tt.text {
				t.Errorf("decoded %q, want %q", got, tt.text)
			}
		})
	}
}

// FuzzSniffCharset: whatever the bytes, sniffing decides a charset
// lookupCharset knows, from a documented source, and every candidate is
// scored without a panic, whether the sample is the whole body or its
// start.
func FuzzSniffCharset(f *testing.F) {
	for _, seed := range []struct {
		enc  encoding.Encoding
		text string
	}{
		{charmap.Windows1251, russianLong}, {charmap.KOI8R, russianLower}, {charmap.CodePage866, russianShort},
		{japanese.ShiftJIS, japaneseShort}, {japanese.EUCJP, japaneseText}, {korean.EUCKR, koreanText},
		{simplifiedchinese.GBK, chineseSimp}, {traditionalchinese.Big5, chineseTrad},
		{charmap.Windows1250, polish}, {charmap.Windows1252, frenchLong}, {charmap.ISO8859_7, greek},
		{charmap.ISO8859_8, hebrew}, {charmap.Windows874, thaiShop},
	} {
		f.Add(encode(seed.enc, htmlPage("t", seed.text)), true)
	}
	f.Add([]byte("x\x80\x81\xfe\xff"), false)
	f.Add([]byte("\x8f\xa1"), false)
	f.Add([]byte("\x81\x30\x81"), true)
	f.Fuzz(func(t *testing.T, body []byte, isHTML bool) {
		enc, name, source := sniffCharset(body, isHTML)
		if known, canonical := lookupCharset(name); enc == nil || known == nil || canonical != name {
			t.Fatalf("decided %q (%v), not a known charset", name, enc)
		}
		switch {
		case source == SourceSniff:
		case source == SourceDefault && (name == "utf-8" || name == "windows-1252"):
		default:
			t.Fatalf("decided %s (%s)", name, source)
		}
		s := newSniffSample(body)
		for _, truncated := range []bool{false, true} {
			s.truncated = truncated
			for _, c := range sniffCandidates(s.b, isHTML) {
				c.score(s, math.MinInt32)
			}
		}
	})
}

// BenchmarkSniffCharset measures the detection of an undeclared 64 KiB
// page (the most that is looked at) in a few charsets.
func BenchmarkSniffCharset(b *testing.B) {
	for _, bc := range []struct {
		name string
		enc  encoding.Encoding
		text string
	}{
		{"windows-1251", charmap.Windows1251, russianLong},
		{"windows-1252", charmap.Windows1252, frenchLong},
		{"shift_jis", japanese.ShiftJIS, japaneseText},
		{"gbk", simplifiedchinese.GBK, chineseSimp},
		{"windows-874", charmap.Windows874, thaiCity},
	} {
		para := "<p class=\"text\">" + bc.text + "</p>\n"
		page := htmlPage("bench", strings.Repeat(para, sniffLen/len(encode(bc.enc, para))+1))
		body := encode(bc.enc, page)[:sniffLen]
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				sniffCharset(body, true)
			}
		})
	}
}

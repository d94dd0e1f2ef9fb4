package cfetch

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
)

// wordScore is the plausibility of text.
func wordScore(text string) int {
	var p plausibility
	for _, r := range text {
		p.add(classifyRune(r))
	}
	p.add(classifyRune(' '))
	return p.total()
}

// TestThaiWordOrder: every phrase of real Thai text reads as words; Thai
// characters in an order Thai is not written in do not.
func TestThaiWordOrder(t *testing.T) {
	// Words whose order the rules must allow: a vowel after a vowel
	// (เกาะ), a tone mark on a vowel above (ก๋วยเตี๋ยว), a silent letter on
	// a vowel (ศักดิ์), ฤ, ๆ apart, ฯลฯ, and sara am typed as two
	// characters (กํา).
	tricky := "เกาะ น้ำ ศักดิ์ ก๋วยเตี๋ยว จันทร์ ฤดู ทฤษฎี เล็ก ต่าง ๆ ฯลฯ กํา"
	for _, text := range []string{thaiShop, thaiCity, thaiHours, tricky} {
		for _, phrase := range strings.Fields(text) {
			thai := 0
			for _, r := range phrase {
				if 0x0e00 <= r && r <= 0x0e7f {
					thai++
				}
			}
			if thai < 2 {
				continue // a word of one letter counts neither way: "น." (o'clock)
			}
			if s := wordScore(phrase); s <= 0 {
				t.Errorf("%q scores %d, want it to read as Thai", phrase, s)
			}
		}
	}
	for _, tt := range []struct{ text, why string }{
		{"ิกา", "a vowel above at the start of a word"},
		{"ก่่า", "two tone marks"},
		{"ก่ิ", "a vowel above after a tone mark"},
		{"เาก", "a leading vowel before a vowel"},
		{"กินเ", "a leading vowel at the end of a word"},
		{"าก", "a following vowel at the start of a word"},
		{"เ่ก", "a tone mark on a leading vowel"},
		{"ฅนไทย", "an obsolete letter"},
		{"ลฦา", "an obsolete letter"},
	} {
		if s := wordScore(tt.text); s >= 0 {
			t.Errorf("%q (%s) scores %d, want it below 0", tt.text, tt.why, s)
		}
	}
}

// TestSniffReadsNoOtherTextAsThai: windows-874 reads most bytes of
// Chinese, Japanese and Korean text as Thai letters, and many of the
// Cyrillic and Arabic charsets'; no piece of such text, from two
// characters to a few phrases, that sniffing decided right without Thai
// is decided to be Thai. (Short pieces of Arabic are read as Thai: chardet
// does not guess windows-1256 for them, so they were read wrong before.)
func TestSniffReadsNoOtherTextAsThai(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		enc  encoding.Encoding
		text string
	}{
		{charmap.Windows1251, russianLong + " " + ukrainian},
		{charmap.KOI8R, russianShort},
		{charmap.CodePage866, russianShort},
		{charmap.ISO8859_5, russianShort},
		{charmap.Windows1250, polish + " " + czech},
		{charmap.Windows1252, frenchLong + " " + german + " " + spanish},
		{charmap.Windows1254, turkish},
		{charmap.Windows1256, arabic},
		{charmap.ISO8859_7, greek},
		{charmap.ISO8859_8, hebrew},
		{japanese.ShiftJIS, japaneseText},
		{japanese.EUCJP, japaneseText},
		{korean.EUCKR, koreanText},
		{simplifiedchinese.GBK, chineseSimp},
		{traditionalchinese.Big5, chineseTrad},
	} {
		rs := []rune(tt.text)
		for _, n := range []int{2, 3, 4, 5, 6, 8, 10, 13, 16, 20, 25, 32, 40} {
			for i := 0; i+n <= len(rs); i++ {
				text := string(rs[i : i+n])
				body := encode(tt.enc, text)
				if utf8.Valid(body) {
					continue
				}
				for _, html := range []bool{false, true} {
					s := newSniffSample(body)
					cands := sniffCandidates(s.b, html)
					got := s.best(cands)
					if got != thaiCandidate {
						continue
					}
					before := s.best(slices.DeleteFunc(cands, func(c *sniffCandidate) bool { return c == thaiCandidate }))
					if before == nil {
						continue // windows-1252 by default: wrong too
					}
					if b, _ := before.enc.NewDecoder().Bytes(body); string(b) == text {
						t.Errorf("%q in %s is sniffed as windows-874, was %s", text, tt.enc, before.name)
					}
				}
			}
		}
	}
}

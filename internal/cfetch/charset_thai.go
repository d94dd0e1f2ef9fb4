package cfetch

// Thai has no case and no spaces between words, so the rules that tell
// Cyrillic or Latin read in the wrong charset (case, accents) say nothing
// of it; and windows-874 reads most bytes of Chinese, Japanese or Korean
// text as Thai letters. What tells Thai from those is the order its
// characters are written in, which Thai input methods check (a simplified
// form of WTT 2.0's input sequence rules): a vowel written before its
// consonant (เ แ โ ใ ไ) is followed by a consonant; a vowel above or below
// (ั ิ ุ …) sits on a consonant; a tone mark (่ ้ …) sits on a consonant or
// on its vowel above or below; a vowel written after (ะ า ำ) does not start
// a word. And the letters ฃ ฅ ฦ and the sign ๎ are no longer used: text
// that has them is not today's Thai. (ๆ and ฯ may go anywhere: ๆ often
// stands apart, as in "ต่าง ๆ".)

// thaiKind is what a Thai character may follow in a word.
type thaiKind uint8

const (
	thaiNone       thaiKind = iota // not Thai, or free to go anywhere: ๆ, ฯ, digits, ฿
	thaiConsonant                  // ก–ฮ (ฤ included; ฦ is obsolete)
	thaiLeading                    // เ แ โ ใ ไ: a consonant follows
	thaiFollowing                  // ะ า ำ ๅ: not at the start of a word
	thaiAboveBelow                 // ั ิ ี ึ ื ุ ู ฺ ็: after a consonant
	thaiTone                       // ่ ้ ๊ ๋ ์ ํ: after a consonant or a vowel above or below
	thaiObsolete                   // ฃ ฅ ฦ ๎: not in today's words
)

// thaiKindOf is the thaiKind of r.
func thaiKindOf(r rune) thaiKind {
	switch {
	case r == 0x0e03, r == 0x0e05, r == 0x0e26, r == 0x0e4e:
		return thaiObsolete
	case 0x0e01 <= r && r <= 0x0e2e:
		return thaiConsonant
	case 0x0e40 <= r && r <= 0x0e44:
		return thaiLeading
	case r == 0x0e30, r == 0x0e32, r == 0x0e33, r == 0x0e45:
		return thaiFollowing
	case r == 0x0e31, 0x0e34 <= r && r <= 0x0e3a, r == 0x0e47:
		return thaiAboveBelow
	case 0x0e48 <= r && r <= 0x0e4d:
		return thaiTone
	}
	return thaiNone
}

// thaiFits reports whether a character of kind k may follow one of kind
// prev in a word (prev is thaiNone at the start of a word).
func thaiFits(prev, k thaiKind) bool {
	switch {
	case k == thaiObsolete:
		return false
	case prev == thaiLeading:
		return k == thaiConsonant
	case k == thaiFollowing:
		return prev != thaiNone
	case k == thaiAboveBelow:
		return prev == thaiConsonant
	case k == thaiTone:
		return prev == thaiConsonant || prev == thaiAboveBelow
	}
	return true
}

package cfetch

// cjkLayout is the byte layout of a legacy multibyte charset, as far as
// sniffing needs it: where its sequences start and end, and which of them
// are the common core of the national standard it extends. Text in one of
// these charsets read as another is mostly rare characters: Shift_JIS
// kanji read as GBK fall in GBK's extensions, GBK hanzi read as Shift_JIS
// are half-width katakana.
type cjkLayout uint8

const (
	noLayout cjkLayout = iota
	layoutShiftJIS
	layoutEUCJP
	layoutGB18030
	layoutBig5
	layoutEUCKR
)

// cjkLayouts maps canonical charset names to their layouts.
var cjkLayouts = map[string]cjkLayout{
	"shift_jis": layoutShiftJIS,
	"euc-jp":    layoutEUCJP,
	"gbk":       layoutGB18030,
	"gb18030":   layoutGB18030,
	"big5":      layoutBig5,
	"euc-kr":    layoutEUCKR,
}

// japanese reports whether l is a Japanese charset's.
func (l cjkLayout) japanese() bool {
	return l == layoutShiftJIS || l == layoutEUCJP
}

// kanaRare reports whether kana are rare in text in the charset: they are
// in Chinese and Korean.
func (l cjkLayout) kanaRare() bool {
	return l == layoutGB18030 || l == layoutBig5 || l == layoutEUCKR
}

// Results of cjkLayout.next besides a sequence's length.
const (
	seqInvalid = -1 // no sequence starts here
	seqCut     = -2 // a sequence starts here and goes past the end
)

// rareChars counts the rare characters of b read in l, up to limit: it
// stops counting there. With strict, it reports false at the first byte
// that starts no sequence; without, such a byte is skipped. A sequence cut
// by the end of b is invalid unless truncated says b is the start of a
// longer body.
func (l cjkLayout) rareChars(b []byte, truncated, strict bool, limit int) (int, bool) {
	rare := 0
	for i := 0; i < len(b) && rare < limit; {
		if b[i] < 0x80 {
			i++
			continue
		}
		n, common := l.next(b[i:])
		switch {
		case n == seqCut && truncated:
			return rare, true
		case n < 0 && strict:
			return 0, false
		case n < 0:
			i++
			continue
		}
		if !common {
			rare++
		}
		i += n
	}
	return rare, true
}

// next reads the sequence at the start of b, whose first byte is not
// ASCII: its length (or seqInvalid, seqCut) and whether it is common.
func (l cjkLayout) next(b []byte) (n int, common bool) {
	lead, trail := b[0], byte(0)
	if len(b) > 1 {
		trail = b[1]
	}
	switch l {
	case layoutShiftJIS:
		switch {
		case lead == 0x80, in(lead, 0xa1, 0xdf): // U+0080, half-width katakana
			return 1, false
		case in(lead, 0x81, 0x9f), in(lead, 0xe0, 0xfc):
			// Symbols, kana, and the level 1 kanji are common.
			return pair(b, in(trail, 0x40, 0xfc) && trail != 0x7f), in(lead, 0x81, 0x84) || in(lead, 0x87, 0x98)
		}
	case layoutEUCJP:
		switch {
		case lead == 0x8e: // half-width katakana
			return pair(b, in(trail, 0xa1, 0xdf)), false
		case lead == 0x8f: // JIS X 0212
			switch {
			case len(b) > 1 && !in(trail, 0xa1, 0xfe), len(b) > 2 && !in(b[2], 0xa1, 0xfe):
				return seqInvalid, false
			case len(b) < 3:
				return seqCut, false
			}
			return 3, false
		case in(lead, 0xa1, 0xfe):
			return pair(b, in(trail, 0xa1, 0xfe)), in(lead, 0xa1, 0xa5) || in(lead, 0xb0, 0xcf)
		}
	case layoutGB18030:
		switch {
		case lead == 0x80: // the euro sign
			return 1, false
		case lead == 0xff:
			return seqInvalid, false
		case in(trail, 0x30, 0x39): // four bytes
			switch {
			case len(b) < 4:
				return seqCut, false
			case in(b[2], 0x81, 0xfe) && in(b[3], 0x30, 0x39):
				return 4, false
			}
			return seqInvalid, false
		}
		// GB 2312's symbols and level 1 hanzi are common.
		return pair(b, in(trail, 0x40, 0xfe) && trail != 0x7f),
			trail >= 0xa1 && (in(lead, 0xa1, 0xa9) || in(lead, 0xb0, 0xd7))
	case layoutBig5:
		if in(lead, 0x81, 0xfe) {
			// Symbols and the level 1 hanzi (up to 0xc67e) are common.
			return pair(b, in(trail, 0x40, 0x7e) || in(trail, 0xa1, 0xfe)),
				in(lead, 0xa1, 0xc5) || lead == 0xc6 && trail <= 0x7e
		}
	case layoutEUCKR:
		if in(lead, 0x81, 0xfe) {
			// KS X 1001's symbols and Hangul are common.
			return pair(b, in(trail, 0x41, 0x5a) || in(trail, 0x61, 0x7a) || in(trail, 0x81, 0xfe)),
				trail >= 0xa1 && (in(lead, 0xa1, 0xac) || in(lead, 0xb0, 0xc8))
		}
	}
	return seqInvalid, false
}

// pair is the length of a two-byte sequence at the start of b whose second
// byte is valid or not.
func pair(b []byte, valid bool) int {
	switch {
	case len(b) < 2:
		return seqCut
	case !valid:
		return seqInvalid
	}
	return 2
}

func in(c, lo, hi byte) bool { return lo <= c && c <= hi }

package record

import (
	"unicode/utf8"

	"github.com/crawlutils/crawlutils/internal/percent"
)

// AppendString appends src (a string, or the bytes of one without
// converting them) as encoding/json writes a string with
// SetEscapeHTML(false): quoted, with \" \\ \b \f \n \r \t, other control
// bytes as \u00XX, invalid UTF-8 bytes as \ufffd, and U+2028 and U+2029
// escaped. Writers that build records by hand on a hot path use it.
func AppendString[T ~[]byte | ~string](dst []byte, src T) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(src); {
		b := src[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, src[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', percent.LowerHex[b>>4], percent.LowerHex[b&0xf])
			}
			i++
			start = i
			continue
		}
		c, size := decodeRune(src[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(dst, src[start:i]...)
			dst = append(dst, `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', percent.LowerHex[c&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, src[start:]...)
	return append(dst, '"')
}

// StringLen is the length of AppendString's output for s, quotes
// included, so a line can be allocated once at its size.
func StringLen[T ~[]byte | ~string](s T) int {
	n := 2
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			switch {
			case b == '"' || b == '\\' || b == '\b' || b == '\f' || b == '\n' || b == '\r' || b == '\t':
				n += 2
			case b < 0x20:
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		c, size := decodeRune(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			n += 6 // \ufffd
		case c == '\u2028' || c == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}

// decodeRune decodes the first rune of s; converting at most UTFMax bytes
// to a string keeps it on the stack, as encoding/json does.
func decodeRune[T ~[]byte | ~string](s T) (rune, int) {
	return utf8.DecodeRuneInString(string(s[:min(len(s), utf8.UTFMax)]))
}

package cexport

import (
	"encoding/xml"
	"io"
	"strings"
	"sync"
	"unicode/utf8"
)

// XML names: which characters may start and continue an element name.
//
// ASCII is decided here: letters and _ start a name; digits, - and . may
// follow. The colon is left out on purpose (it would make a namespace
// prefix). Other characters are accepted exactly when encoding/xml accepts
// them; it follows the XML 1.0 Appendix B tables, which are stricter than the
// 5th edition, so what it accepts every XML parser accepts.

const (
	nameStart = 1 << iota
	nameChar
)

// runeClass caches nameStart|nameChar for non-ASCII runes (at most one
// entry per rune ever seen in a key).
var runeClass sync.Map // rune → uint8

func classOf(r rune) uint8 {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', r == '_':
		return nameStart | nameChar
	case '0' <= r && r <= '9', r == '-', r == '.':
		return nameChar
	case r < utf8.RuneSelf || r == utf8.RuneError:
		return 0
	}
	if c, ok := runeClass.Load(r); ok {
		return c.(uint8)
	}
	var c uint8
	if xmlParses("<" + string(r) + "/>") {
		c |= nameStart
	}
	if xmlParses("<a" + string(r) + "/>") {
		c |= nameChar
	}
	runeClass.Store(r, c)
	return c
}

// xmlParses reports whether encoding/xml reads doc without error.
func xmlParses(doc string) bool {
	d := xml.NewDecoder(strings.NewReader(doc))
	for {
		_, err := d.Token()
		if err == io.EOF {
			return true
		}
		if err != nil {
			return false
		}
	}
}

// isXMLName reports whether s can be used as an element name unchanged.
func isXMLName(s string) bool {
	name, changed := xmlName(s)
	return !changed && name == s
}

// xmlName turns a JSON key into an element name: characters that cannot be
// in a name become _, and a name that cannot start with its first character
// (a digit, -, .) gets a _ in front. changed reports whether it had to.
func xmlName(key string) (name string, changed bool) {
	if key == "" {
		return "_", true
	}
	var b strings.Builder
	for i, r := range key {
		c := classOf(r)
		if i == 0 && c == nameChar {
			changed = true
			b.Grow(len(key) + 1)
			b.WriteByte('_')
		}
		if c&nameChar == 0 && c&nameStart == 0 {
			changed = true
			b.WriteByte('_')
			continue
		}
		b.WriteRune(r)
	}
	if !changed {
		return key, false
	}
	return b.String(), true
}

// appendXMLText appends s escaped as element content: & < > as entities,
// CR as a character reference (a parser would turn a raw one into LF), LF
// as one too (so an item is one line, which resuming relies on: see
// resumeXML), and characters XML 1.0 does not allow (control characters,
// invalid UTF-8) as U+FFFD.
func appendXMLText(dst []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		var esc string
		switch {
		case r == '&':
			esc = "&amp;"
		case r == '<':
			esc = "&lt;"
		case r == '>':
			esc = "&gt;"
		case r == '\r':
			esc = "&#xD;"
		case r == '\n':
			esc = "&#xA;"
		case r == utf8.RuneError && n == 1, !isXMLChar(r):
			esc = "\uFFFD"
		default:
			i += n
			continue
		}
		dst = append(dst, s[start:i]...)
		dst = append(dst, esc...)
		i += n
		start = i
	}
	return append(dst, s[start:]...)
}

// isXMLChar is XML 1.0's Char production.
func isXMLChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD ||
		r >= 0x10000 && r <= 0x10FFFF
}

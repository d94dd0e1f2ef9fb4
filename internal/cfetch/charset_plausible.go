package cfetch

import (
	"math/bits"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// The weights of the evidence plausibility adds up.
const (
	// plausibleLetter counts for each non-ASCII letter of a plausible word
	// in lower case or capitalised, upperLetter for each of a plausible
	// word in capitals (rarer, and what lower case of one Cyrillic charset
	// reads as in another) and of a Thai word (a byte a letter, where the
	// Chinese, Japanese or Korean text windows-874 misreads as Thai has two
	// bytes a letter: it would read better than in its own charset).
	plausibleLetter = 2
	upperLetter     = 1
	// implausibleChar counts against each non-ASCII character of an
	// implausible word.
	implausibleChar = 4
	// badChar counts against each invalid sequence, control or
	// private-use character, wherever it is.
	badChar = 10
	// rareChar counts against each character of a multibyte charset
	// outside its common core, and each kana in a Chinese or Korean one.
	rareChar = 4
)

// plausibility scores decoded text, one character at a time, by how much
// its words that have non-ASCII characters look like words of a language:
//
//   - the letters of a word are of one script (Latin, Cyrillic, Greek,
//     Hebrew, Arabic, Thai, …; Han, kana and Hangul count as one); ASCII
//     letters are Latin, but go with CJK too;
//   - no lower-case letter is followed by a capital (the case halves of
//     KOI8-R and windows-1251 are swapped), and no letter by the final
//     form of a Greek or Hebrew letter;
//   - Thai characters are in the order Thai is written in (see thaiKind);
//   - a Latin word is not mostly accented letters (Cyrillic read as
//     windows-1252 is: "Ñúåøü");
//   - no symbol, box-drawing character, control or invalid sequence is
//     next to a letter, and no punctuation but apostrophes and dashes is
//     between letters.
//
// Words of one letter count neither way, except for what is wrong with
// them. Kana count against Chinese and Korean charsets, and CJK text
// without a kana against Japanese ones. Rare characters of a multibyte
// charset are counted from its bytes (see cjkLayout), not here.
type plausibility struct {
	score        int
	kanaRare     bool // kana are rare characters (a Chinese or Korean charset)
	kanaExpected bool // Han without kana is not Japanese (a Japanese charset)
	w            wordStats
	// CJK letters and kana of the words so far
	cjk, kana int
}

// minKanaless is how many CJK letters without a kana make Japanese text
// implausible.
const minKanaless = 10

// total is the score of the text so far.
func (p *plausibility) total() int {
	p.endWord()
	if p.kanaExpected && p.kana == 0 && p.cjk >= minKanaless {
		return p.score - rareChar*p.cjk
	}
	return p.score
}

// wordStats describes the word read so far.
type wordStats struct {
	nonASCII        int // characters
	letters         int
	nonASCIILetters int
	upper, lower    int
	kana            int
	scripts         uint16 // of the non-ASCII letters
	implausible     bool
	prev            charKind // of the previous character; kindSep at the start
	prevLower       bool     // the previous character is a lower-case letter
	prevASCII       bool
	prevFinal       bool     // the previous letter is a final form: ς, ך, ם, …
	prevThai        thaiKind // of the previous character
	punctInside     bool     // punctuation after a letter
}

func (p *plausibility) add(c charClass) {
	if c.kind == kindSep {
		p.endWord()
		return
	}
	w := &p.w
	if !c.ascii {
		w.nonASCII++
	}
	if !thaiFits(w.prevThai, c.thai) {
		w.implausible = true
	}
	w.prevThai = c.thai
	switch c.kind {
	case kindLetter:
		if w.prev == kindSymbol || w.prev == kindBad || w.punctInside || w.prevFinal ||
			c.upper && w.prevLower && !(c.ascii && w.prevASCII) {
			w.implausible = true
		}
		w.letters++
		if c.upper {
			w.upper++
		} else if c.lower {
			w.lower++
		}
		if !c.ascii {
			w.nonASCIILetters++
			w.scripts |= c.script
			switch c.script {
			case scriptKana:
				w.kana++
				p.kana++
				p.cjk++
			case scriptCJK:
				p.cjk++
			}
		}
		w.prevLower, w.prevASCII, w.prevFinal = c.lower, c.ascii, c.final
	case kindMark:
		if w.prev != kindLetter && w.prev != kindMark {
			w.implausible = true
		}
	case kindJoiner:
		w.prevLower, w.prevFinal = false, false
	case kindPunct:
		w.punctInside = w.letters > 0
		w.prevLower, w.prevFinal = false, false
	case kindSymbol, kindBad:
		if w.prev == kindLetter || w.prev == kindMark {
			w.implausible = true
		}
		if c.kind == kindBad {
			p.score -= badChar
		}
	}
	w.prev = c.kind
}

// endWord scores the word read so far and starts the next.
func (p *plausibility) endWord() {
	w := &p.w
	if w.prevThai == thaiLeading { // a vowel that goes before a consonant ends the word
		w.implausible = true
	}
	if w.nonASCII > 0 {
		scripts := w.scripts
		if scripts&scriptKana != 0 {
			scripts = scripts&^scriptKana | scriptCJK
		}
		asciiLetters := w.letters - w.nonASCIILetters
		if asciiLetters > 0 && scripts&scriptCJK == 0 {
			// Latin letters are common in Chinese and Japanese words.
			scripts |= scriptLatin
		}
		switch {
		case w.implausible, bits.OnesCount16(scripts) > 1,
			scripts == scriptLatin && w.nonASCIILetters > asciiLetters+1:
			p.score -= implausibleChar * w.nonASCII
		case w.letters < 2:
		case w.upper >= 2 && w.lower == 0, scripts == scriptThai:
			p.score += upperLetter * w.nonASCIILetters
		default:
			p.score += plausibleLetter * w.nonASCIILetters
		}
		if p.kanaRare {
			p.score -= rareChar * w.kana
		}
	}
	*w = wordStats{}
}

// charKind is what a character is to a word.
type charKind uint8

const (
	kindSep    charKind = iota // ends a word: space, digit, ASCII punctuation, CJK punctuation
	kindLetter                 // part of a word
	kindMark                   // a combining mark, part of the letter before it
	kindJoiner                 // apostrophe, dash, format character: may be inside a word
	kindPunct                  // other punctuation: may start or end a word
	kindSymbol                 // not next to a letter: ©, °, ×, box drawing, …
	kindBad                    // not in text: U+FFFD, controls, private use, unassigned
)

// Scripts of letters, as bits.
const (
	scriptLatin uint16 = 1 << iota
	scriptCyrillic
	scriptGreek
	scriptHebrew
	scriptArabic
	scriptThai
	scriptCJK  // Han and Hangul
	scriptKana // Hiragana and Katakana, which also count as CJK
	scriptOther
)

// charClass is what classifyRune says of a character.
type charClass struct {
	kind         charKind
	script       uint16   // of a letter
	upper, lower bool     // of a letter
	final        bool     // a letter that ends words: Greek ς, Hebrew ך ם ן ף ץ
	thai         thaiKind // what a Thai character may follow
	ascii        bool
}

var asciiClasses = func() (t [utf8.RuneSelf]charClass) {
	for r := range rune(utf8.RuneSelf) {
		t[r] = charClass{kind: kindSep, ascii: true}
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' {
			t[r] = charClass{kind: kindLetter, script: scriptLatin, upper: r <= 'Z', lower: r >= 'a', ascii: true}
		}
	}
	return t
}()

// classifyRune tells what r is to a word.
func classifyRune(r rune) charClass {
	if r < utf8.RuneSelf {
		return asciiClasses[r]
	}
	cjk := charClass{kind: kindLetter, script: scriptCJK}
	switch {
	case r < 0xa0, r == utf8.RuneError, 0xe000 <= r && r <= 0xf8ff:
		return charClass{kind: kindBad}
	case 0x2500 <= r && r <= 0x25ff: // box drawing, blocks, geometric shapes
		return charClass{kind: kindSymbol}
	case 0x3040 <= r && r <= 0x30ff && r != 0x30a0 && r != 0x30fb, 0xff66 <= r && r <= 0xff9f:
		return charClass{kind: kindLetter, script: scriptKana}
	case 0x4e00 <= r && r <= 0x9fff, 0xac00 <= r && r <= 0xd7a3, 0x3400 <= r && r <= 0x4dbf,
		0xf900 <= r && r <= 0xfaff, 0x3005 <= r && r <= 0x3007,
		0xff21 <= r && r <= 0xff3a, 0xff41 <= r && r <= 0xff5a: // fullwidth Latin goes with CJK
		return cjk
	case 0x3000 <= r && r <= 0x30ff, 0xff00 <= r && r <= 0xff65: // CJK and fullwidth punctuation
		return charClass{kind: kindSep}
	case unicode.IsLetter(r):
		return charClass{kind: kindLetter, script: letterScript(r), upper: unicode.IsUpper(r), lower: unicode.IsLower(r),
			final: r == 'ς' || r == 'ך' || r == 'ם' || r == 'ן' || r == 'ף' || r == 'ץ', thai: thaiKindOf(r)}
	case unicode.In(r, unicode.Mn, unicode.Mc, unicode.Me):
		return charClass{kind: kindMark, thai: thaiKindOf(r)}
	case unicode.IsSpace(r), unicode.Is(unicode.Nd, r):
		return charClass{kind: kindSep}
	case r == '’' || r == '·' || unicode.In(r, unicode.Pd, unicode.Cf):
		return charClass{kind: kindJoiner}
	case unicode.IsPunct(r):
		return charClass{kind: kindPunct}
	case unicode.In(r, unicode.No, unicode.Nl): // m², ½
		return charClass{kind: kindPunct}
	case unicode.IsSymbol(r):
		return charClass{kind: kindSymbol}
	}
	return charClass{kind: kindBad}
}

func letterScript(r rune) uint16 {
	for _, s := range letterScripts {
		if unicode.Is(s.table, r) {
			return s.script
		}
	}
	return scriptOther
}

var letterScripts = []struct {
	table  *unicode.RangeTable
	script uint16
}{
	{unicode.Latin, scriptLatin},
	{unicode.Cyrillic, scriptCyrillic},
	{unicode.Greek, scriptGreek},
	{unicode.Hebrew, scriptHebrew},
	{unicode.Arabic, scriptArabic},
	{unicode.Thai, scriptThai},
	{unicode.Han, scriptCJK},
	{unicode.Hangul, scriptCJK},
	{unicode.Hiragana, scriptKana},
	{unicode.Katakana, scriptKana},
}

// charmapTable is what sniffing needs to know of a single-byte charset.
type charmapTable struct {
	classes [256]charClass
	ascii   bool // the bytes below 0x80 are ASCII
}

// charmapTables holds the tables of the single-byte charsets, each made
// when first needed.
var charmapTables sync.Map // *charmap.Charmap → *charmapTable

func charmapClasses(cm *charmap.Charmap) *charmapTable {
	if t, ok := charmapTables.Load(cm); ok {
		return t.(*charmapTable)
	}
	t := &charmapTable{ascii: extendsASCII(cm)}
	for b := range 256 {
		t.classes[b] = classifyRune(cm.DecodeByte(byte(b)))
	}
	got, _ := charmapTables.LoadOrStore(cm, t)
	return got.(*charmapTable)
}

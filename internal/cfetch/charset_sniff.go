package cfetch

import (
	"strings"
	"unicode/utf8"

	"github.com/saintfish/chardet"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	xunicode "golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// sniffCharset guesses the charset of an undeclared body. Valid UTF-8 is
// UTF-8. Otherwise the start of the body (see sniffSample) is read in each
// candidate charset (see sniffCandidates), and the one in which its
// non-ASCII text reads most like words wins (see plausibility); a tie goes
// to the candidate listed first. When no candidate makes plausible words of
// the non-ASCII bytes, the body is windows-1252 by default.
func sniffCharset(data []byte, isHTML bool) (encoding.Encoding, string, string) {
	if utf8.Valid(data) {
		if hasHighBit(data) {
			return xunicode.UTF8, "utf-8", SourceSniff
		}
		return xunicode.UTF8, "utf-8", SourceDefault
	}
	sample := newSniffSample(data)
	if best := sample.best(sniffCandidates(sample.b, isHTML)); best != nil {
		return best.enc, best.name, SourceSniff
	}
	return charmap.Windows1252, "windows-1252", SourceDefault
}

// best is the candidate with the highest score above zero, the first of
// those with the highest; nil if no score is above zero.
func (s *sniffSample) best(cands []*sniffCandidate) *sniffCandidate {
	var best *sniffCandidate
	bestScore := 0
	for _, c := range cands {
		if best != nil && s.sameText(best, c) {
			continue // the same score, and best comes first
		}
		if score, ok := c.score(s, bestScore); ok {
			best, bestScore = c, score
		}
	}
	return best
}

// minConfidence is the chardet confidence (1–100) below which its guess
// ranks after windows-1252.
const minConfidence = 30

// A sniffCandidate is a charset an undeclared body may be in.
type sniffCandidate struct {
	enc  encoding.Encoding
	name string           // canonical, as lookupCharset gives it
	cm   *charmap.Charmap // of a single-byte charset, nil for others
	// layout is the byte layout of a multibyte charset whose rare
	// characters count against it, or noLayout.
	layout cjkLayout
	// strict candidates are out at the sample's first invalid sequence.
	strict bool
}

var (
	windows1252Candidate = knownCandidate("windows-1252", false)
	windows1250Candidate = knownCandidate("windows-1250", false)
	iso88592Candidate    = knownCandidate("iso-8859-2", false)
	// multibyteCandidates are the legacy multibyte charsets of the web.
	multibyteCandidates = []*sniffCandidate{
		knownCandidate("shift_jis", true), knownCandidate("euc-jp", true), knownCandidate("gb18030", true),
		knownCandidate("big5", true), knownCandidate("euc-kr", true),
	}
	// cyrillicCandidates are the Cyrillic single-byte charsets, which
	// chardet does not list for one another's pages.
	cyrillicCandidates = []*sniffCandidate{
		knownCandidate("windows-1251", false), knownCandidate("koi8-r", false),
		knownCandidate("ibm866", false), knownCandidate("iso-8859-5", false),
	}
	// thaiCandidate is windows-874, the Thai charset, which chardet does
	// not know. It extends TIS-620 and ISO-8859-11, whose labels mean it
	// (as in browsers).
	thaiCandidate = knownCandidate("windows-874", false)
	// centralEuropean are the languages chardet's ISO-8859-2 recognizers
	// report.
	centralEuropean = map[string]bool{"cs": true, "hu": true, "pl": true, "ro": true}
)

// newCandidate is the candidate for enc, whose canonical name is name.
func newCandidate(enc encoding.Encoding, name string, strict bool) *sniffCandidate {
	c := &sniffCandidate{enc: enc, name: name, layout: cjkLayouts[name], strict: strict}
	c.cm, _ = enc.(*charmap.Charmap)
	if name == "iso-8859-8-i" {
		c.cm = charmap.ISO8859_8 // the same bytes, in logical order
	}
	return c
}

// knownCandidate is the candidate for a label lookupCharset knows.
func knownCandidate(label string, strict bool) *sniffCandidate {
	enc, name := lookupCharset(label)
	return newCandidate(enc, name, strict)
}

// sniffCandidates lists the charsets sample may be in, in the order that
// breaks ties: chardet's guesses of confidence minConfidence and more,
// windows-1252, chardet's other guesses, the multibyte charsets, the
// Cyrillic charsets, windows-874 (Thai). Each of chardet's Central European guesses is
// followed by ISO-8859-2 or windows-1250.
func sniffCandidates(sample []byte, isHTML bool) []*sniffCandidate {
	det := chardet.NewTextDetector()
	if isHTML {
		det = chardet.NewHtmlDetector()
	}
	results, _ := det.DetectAll(sample) // an error is no guess
	cands := make([]*sniffCandidate, 0, len(results)+2+len(multibyteCandidates)+len(cyrillicCandidates))
	add := func(c *sniffCandidate) {
		for _, have := range cands {
			if have.name == c.name {
				return
			}
		}
		cands = append(cands, c)
	}
	trusted := true
	for _, r := range results {
		if trusted && r.Confidence < minConfidence {
			trusted = false
			add(windows1252Candidate)
		}
		// Not valid UTF-8, and no BOM: not a Unicode encoding.
		if enc, name := chardetEncoding(r.Charset); enc != nil && !strings.HasPrefix(name, "utf-") {
			add(newCandidate(enc, name, false))
		}
		// chardet's recognizers of Czech, Hungarian, Polish and Romanian in
		// ISO-8859-2 report ISO-8859-1 (windows-1252 when C1 bytes occur).
		// Their charset comes second: it has to read better to win.
		if centralEuropean[r.Language] {
			switch r.Charset {
			case "ISO-8859-1":
				add(iso88592Candidate)
			case "windows-1252":
				add(windows1250Candidate)
			}
		}
	}
	add(windows1252Candidate)
	for _, c := range multibyteCandidates {
		add(c)
	}
	for _, c := range cyrillicCandidates {
		add(c)
	}
	add(thaiCandidate)
	return cands
}

// chardetEncoding maps chardet's (ICU's) charset names to x/text encodings.
func chardetEncoding(name string) (encoding.Encoding, string) {
	switch name {
	case "GB-18030":
		name = "gb18030"
	case "ISO-8859-8-I":
		name = "iso-8859-8-i"
	case "UTF-32BE", "UTF-32LE", "IBM420_rtl", "IBM420_ltr", "IBM424_rtl", "IBM424_ltr":
		return nil, ""
	}
	return lookupCharset(name)
}

// sniffSample is the start of a body that chardet reads and candidates are
// scored on: up to sniffLen bytes, and no further than maxEvidence
// non-ASCII bytes.
type sniffSample struct {
	b []byte
	// truncated says b is the start of a longer body: a sequence cut by
	// its end is not invalid.
	truncated bool
	// highFrom[i] is the number of non-ASCII bytes in b[i*sniffBlock:].
	highFrom []int
	present  [256]bool // the byte values in b
	scratch  []byte    // decoded text
}

const (
	// maxEvidence is how many non-ASCII bytes are enough to judge by: some
	// thousands of words.
	maxEvidence = 8 << 10
	// sniffBlock is how many bytes are read between two looks at whether
	// a candidate can still win.
	sniffBlock = 1 << 10
)

// newSniffSample is the sample of the body data.
func newSniffSample(data []byte) *sniffSample {
	s := &sniffSample{b: data[:min(len(data), sniffLen)]}
	high := 0
	for start := 0; start < len(s.b); start += sniffBlock {
		s.highFrom = append(s.highFrom, high)
		for i, c := range s.b[start:min(len(s.b), start+sniffBlock)] {
			s.present[c] = true
			if c < utf8.RuneSelf {
				continue
			}
			if high++; high == maxEvidence {
				s.b = s.b[:start+i+1]
				break
			}
		}
	}
	s.highFrom = append(s.highFrom, high)
	for i := range s.highFrom { // counts before the block to counts from it
		s.highFrom[i] = high - s.highFrom[i]
	}
	s.truncated = len(s.b) < len(data)
	return s
}

// sameText reports whether the sample reads the same in the single-byte
// charsets of a and b.
func (s *sniffSample) sameText(a, b *sniffCandidate) bool {
	if a.cm == nil || b.cm == nil {
		return false
	}
	for c, ok := range s.present {
		if ok && a.cm.DecodeByte(byte(c)) != b.cm.DecodeByte(byte(c)) {
			return false
		}
	}
	return true
}

// hopeless reports whether text that scores p after its first n bytes
// cannot score more than beat however the rest reads: each non-ASCII byte
// is at most a plausible letter.
func (s *sniffSample) hopeless(p *plausibility, n, beat int) bool {
	return p.score+plausibleLetter*(p.w.nonASCIILetters+s.highFrom[min(n, len(s.b))/sniffBlock]) <= beat
}

// score is the plausibility of the sample decoded in c, and true when it is
// more than beat. It is false for a strict candidate the sample is not
// valid in, and may stop reading as soon as c cannot beat beat.
func (c *sniffCandidate) score(s *sniffSample, beat int) (int, bool) {
	p := plausibility{kanaRare: c.layout.kanaRare(), kanaExpected: c.layout.japanese()}
	if c.layout != noLayout {
		// With this many rare characters c cannot score more than beat.
		limit := (plausibleLetter*s.highFrom[0] - beat + rareChar - 1) / rareChar
		rare, ok := c.layout.rareChars(s.b, s.truncated, c.strict, limit)
		if !ok {
			return 0, false
		}
		p.score -= rareChar * rare
	}
	if s.hopeless(&p, 0, beat) {
		return 0, false
	}
	var complete bool
	if c.cm != nil {
		complete = c.scoreBytes(s, charmapClasses(c.cm), &p, beat)
	} else {
		complete = c.scoreDecoded(s, &p, beat)
	}
	if !complete {
		return 0, false
	}
	score := p.total()
	return score, score > beat
}

// scoreBytes adds the sample to p, read in a single-byte charset of the
// given table, and reports false if it stopped early, when c cannot beat
// beat.
func (c *sniffCandidate) scoreBytes(s *sniffSample, t *charmapTable, p *plausibility, beat int) bool {
	b, check := s.b, sniffBlock
	for i := 0; i < len(b); {
		if t.ascii && p.w.prev == kindSep {
			if i = nextWord(b, i); i == len(b) {
				break
			}
		}
		p.add(t.classes[b[i]])
		if i++; i >= check {
			if s.hopeless(p, i, beat) {
				return false
			}
			check = (i/sniffBlock + 1) * sniffBlock
		}
	}
	return true
}

// scoreDecoded adds the sample to p, decoded in c, and reports false if it
// stopped early: when c cannot beat beat, or at an invalid sequence if c is
// strict.
func (c *sniffCandidate) scoreDecoded(s *sniffSample, p *plausibility, beat int) bool {
	if s.scratch == nil {
		s.scratch = make([]byte, 4*sniffBlock)
	}
	dec := c.enc.NewDecoder()
	for src := s.b; ; {
		nDst, nSrc, err := dec.Transform(s.scratch, src, !s.truncated)
		text := s.scratch[:nDst]
		for i := 0; i < len(text); {
			if p.w.prev == kindSep {
				if i = nextWord(text, i); i == len(text) {
					break
				}
			}
			if text[i] < utf8.RuneSelf {
				p.add(asciiClasses[text[i]])
				i++
				continue
			}
			r, size := utf8.DecodeRune(text[i:])
			if r == utf8.RuneError && c.strict {
				return false
			}
			p.add(classifyRune(r))
			i += size
		}
		src = src[nSrc:]
		if s.hopeless(p, len(s.b)-len(src), beat) {
			return false
		}
		// Done, or the rest is a sequence cut by the end of the sample.
		if err != transform.ErrShortDst || nDst == 0 && nSrc == 0 {
			return true
		}
	}
}

// nextWord skips, from b[i] on, the ASCII that cannot change a score:
// words of ASCII letters only, and what separates them. It returns where
// the next word with a non-ASCII byte starts, or where a word of ASCII
// letters that ends b starts (the next text may go on with it), or len(b).
// b[i] is not inside a word, and a byte below 0x80 is an ASCII character.
func nextWord(b []byte, i int) int {
	j := i
	for j < len(b) && b[j] < utf8.RuneSelf {
		j++
	}
	for j > i && asciiClasses[b[j-1]].kind == kindLetter {
		j--
	}
	return j
}

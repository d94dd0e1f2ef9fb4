package fingerprint

import (
	"errors"
	"fmt"
	"net/netip"
	"regexp"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/crawlutils/crawlutils/internal/percent"
)

// This file ports the parts of CPython 3.11's urllib.parse that w3lib and
// Scrapy call, with the same quirks: scheme detection, netloc splitting,
// ";params" in the last path segment, quote/unquote on bytes, urlunsplit.

// splitURL is urllib.parse.SplitResult.
type splitURL struct {
	scheme, netloc, path, query, fragment string
}

// parsedURL is urllib.parse.ParseResult.
type parsedURL struct {
	splitURL
	params string
}

const c0ControlOrSpace = "\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\n\x0b\x0c\r\x0e\x0f" +
	"\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f "

var tabNewline = strings.NewReplacer("\t", "", "\n", "", "\r", "")

// w3libStrip is w3lib's _strip: trim C0 controls and spaces at both ends and
// drop ASCII tabs and newlines anywhere.
func w3libStrip(s string) string {
	return tabNewline.Replace(strings.Trim(s, c0ControlOrSpace))
}

func isSchemeChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'
}

// urlsplit is urllib.parse.urlsplit(url) with allow_fragments=True.
func urlsplit(u string) (splitURL, error) {
	u = strings.TrimLeft(u, c0ControlOrSpace)
	u = tabNewline.Replace(u)
	var r splitURL
	if i := strings.IndexByte(u, ':'); i > 0 && isASCIIAlpha(u[0]) {
		ok := true
		for j := 0; j < i; j++ {
			if !isSchemeChar(u[j]) {
				ok = false
				break
			}
		}
		if ok {
			r.scheme, u = strings.ToLower(u[:i]), u[i+1:]
		}
	}
	if strings.HasPrefix(u, "//") {
		end := len(u)
		if i := strings.IndexAny(u[2:], "/?#"); i >= 0 {
			end = 2 + i
		}
		r.netloc, u = u[2:end], u[end:]
		open, closed := strings.Contains(r.netloc, "["), strings.Contains(r.netloc, "]")
		if open != closed {
			return r, errors.New("invalid IPv6 URL")
		}
		if open {
			if err := checkBracketedNetloc(r.netloc); err != nil {
				return r, err
			}
		}
	}
	if i := strings.IndexByte(u, '#'); i >= 0 {
		u, r.fragment = u[:i], u[i+1:]
	}
	if i := strings.IndexByte(u, '?'); i >= 0 {
		u, r.query = u[:i], u[i+1:]
	}
	r.path = u
	if err := checkNetloc(r.netloc); err != nil {
		return r, err
	}
	return r, nil
}

func isASCIIAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

var ipvFuture = regexp.MustCompile(`\Av[a-fA-F0-9]+\.[^\n]+\z`)

// checkBracketedNetloc is urllib.parse._check_bracketed_netloc.
func checkBracketedNetloc(netloc string) error {
	hostport := netloc[strings.LastIndexByte(netloc, '@')+1:]
	before, bracketed, found := strings.Cut(hostport, "[")
	var host string
	if found {
		if before != "" {
			return errors.New("invalid IPv6 URL")
		}
		var port string
		host, port, _ = strings.Cut(bracketed, "]")
		if port != "" && !strings.HasPrefix(port, ":") {
			return errors.New("invalid IPv6 URL")
		}
	} else {
		host, _, _ = strings.Cut(hostport, ":")
	}
	if strings.HasPrefix(host, "v") {
		if !ipvFuture.MatchString(host) {
			return errors.New("invalid IPvFuture address")
		}
		return nil
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("%q is not an IPv4 or IPv6 address", host)
	}
	if addr.Is4() {
		return errors.New("an IPv4 address cannot be in brackets")
	}
	return nil
}

// checkNetloc is urllib.parse._checknetloc: a non-ASCII netloc must not
// hide URL delimiters that NFKC normalization would reveal.
func checkNetloc(netloc string) error {
	if isASCII(netloc) {
		return nil
	}
	n := netlocDelims.Replace(netloc)
	n2 := norm.NFKC.String(n)
	if n == n2 {
		return nil
	}
	if strings.ContainsAny(n2, "/?#@:") {
		return fmt.Errorf("netloc %q contains invalid characters under NFKC normalization", netloc)
	}
	return nil
}

var netlocDelims = strings.NewReplacer("@", "", ":", "", "#", "", "?", "")

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// schemes of urllib.parse.uses_params and uses_netloc.
var (
	usesParams = set("", "ftp", "hdl", "prospero", "http", "imap", "https", "shttp", "rtsp", "rtspu", "sip", "sips", "mms", "sftp", "tel")
	usesNetloc = set("", "ftp", "http", "gopher", "nntp", "telnet", "imap", "wais", "file", "mms", "https", "shttp",
		"snews", "prospero", "rtsp", "rtspu", "rsync", "svn", "svn+ssh", "sftp", "nfs", "git", "git+ssh", "ws", "wss")
)

func set(items ...string) map[string]bool {
	m := make(map[string]bool, len(items))
	for _, s := range items {
		m[s] = true
	}
	return m
}

// urlparse is urllib.parse.urlparse: urlsplit, then ";params" split off the
// last path segment for the schemes that use them.
func urlparse(u string) (parsedURL, error) {
	s, err := urlsplit(u)
	if err != nil {
		return parsedURL{}, err
	}
	p := parsedURL{splitURL: s}
	if usesParams[s.scheme] && strings.Contains(s.path, ";") {
		i := strings.IndexByte(s.path, ';')
		if j := strings.LastIndexByte(s.path, '/'); j >= 0 {
			i = strings.IndexByte(s.path[j:], ';')
			if i >= 0 {
				i += j
			}
		}
		if i >= 0 {
			p.path, p.params = s.path[:i], s.path[i+1:]
		}
	}
	return p, nil
}

// urlunsplit is urllib.parse.urlunsplit (3.11).
func urlunsplit(s splitURL) string {
	u := s.path
	if s.netloc != "" || (s.scheme != "" && usesNetloc[s.scheme] && !strings.HasPrefix(u, "//")) {
		if u != "" && u[0] != '/' {
			u = "/" + u
		}
		u = "//" + s.netloc + u
	}
	if s.scheme != "" {
		u = s.scheme + ":" + u
	}
	if s.query != "" {
		u += "?" + s.query
	}
	if s.fragment != "" {
		u += "#" + s.fragment
	}
	return u
}

// urlunparse is urllib.parse.urlunparse.
func urlunparse(p parsedURL) string {
	s := p.splitURL
	if p.params != "" {
		s.path += ";" + p.params
	}
	return urlunsplit(s)
}

// safeSet is a byte set for quote.
type safeSet [256]bool

// newSafe returns the set of bytes quote leaves alone: Python's always-safe
// characters (letters, digits, "_.-~") plus extra.
func newSafe(extra string) *safeSet {
	var s safeSet
	for c := 'a'; c <= 'z'; c++ {
		s[c] = true
		s[c-'a'+'A'] = true
	}
	for c := '0'; c <= '9'; c++ {
		s[c] = true
	}
	for _, c := range []byte("_.-~" + extra) {
		s[c] = true
	}
	return &s
}

// quote is urllib.parse.quote on bytes: every byte outside safe becomes %XX.
func quote(b string, safe *safeSet) string {
	n := 0
	for i := 0; i < len(b); i++ {
		if !safe[b[i]] {
			n++
		}
	}
	if n == 0 {
		return b
	}
	var sb strings.Builder
	sb.Grow(len(b) + 2*n)
	for i := 0; i < len(b); i++ {
		c := b[i]
		if safe[c] {
			sb.WriteByte(c)
		} else {
			percent.WriteEscape(&sb, c)
		}
	}
	return sb.String()
}

// quotePlus is urllib.parse.quote_plus(b, safe=”): spaces become "+".
func quotePlus(b string) string {
	if !strings.Contains(b, " ") {
		return quote(b, plusSafe)
	}
	return strings.ReplaceAll(quote(b, plusSpaceSafe), " ", "+")
}

var (
	plusSafe      = newSafe("")
	plusSpaceSafe = newSafe(" ")
)

// unquoteToBytes is urllib.parse.unquote_to_bytes: %XX becomes the byte,
// anything else (a lone or malformed "%") is kept.
func unquoteToBytes(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if c, ok := percent.DecodeAt(s, i); ok {
			b = append(b, c)
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}

// unquoteUTF8 is urllib.parse.unquote (str, UTF-8, errors="replace"):
// escapes are decoded and invalid UTF-8 among them becomes U+FFFD.
func unquoteUTF8(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	return decodeReplace(unquoteToBytes(s))
}

// decodeReplace decodes b as UTF-8 the way Python does with
// errors="replace": each maximal ill-formed subsequence becomes one U+FFFD.
func decodeReplace(b string) string {
	if utf8.ValidString(b) {
		return b
	}
	var sb strings.Builder
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRuneInString(b[i:])
		if r != utf8.RuneError || n > 1 {
			sb.WriteString(b[i : i+n])
			i += n
			continue
		}
		sb.WriteRune(utf8.RuneError)
		i += maximalSubpart(b[i:])
	}
	return sb.String()
}

// maximalSubpart is the length of the longest prefix of b that starts a
// well-formed UTF-8 sequence (at least 1): Unicode's "maximal subpart".
func maximalSubpart(b string) int {
	c := b[0]
	var need int
	lo, hi := byte(0x80), byte(0xBF)
	switch {
	case 0xC2 <= c && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case 0xE1 <= c && c <= 0xEC, c == 0xEE, c == 0xEF:
		need = 2
	case c == 0xED:
		need, hi = 2, 0x9F
	case c == 0xF0:
		need, lo = 3, 0x90
	case 0xF1 <= c && c <= 0xF3:
		need = 3
	case c == 0xF4:
		need, hi = 3, 0x8F
	default:
		return 1
	}
	n := 1
	for k := 0; k < need && n < len(b); k++ {
		if b[n] < lo || b[n] > hi {
			break
		}
		lo, hi = 0x80, 0xBF
		n++
	}
	return n
}

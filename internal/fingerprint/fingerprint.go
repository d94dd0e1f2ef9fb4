package fingerprint

import (
	"crypto/sha1"
	"strings"
	"unicode/utf8"

	"github.com/zeebo/xxh3"

	"github.com/crawlutils/crawlutils/internal/hostname"
	"github.com/crawlutils/crawlutils/internal/percent"
)

// Scrapy returns the request fingerprint Scrapy ≥ 2.7 computes by default
// (scrapy.utils.request.fingerprint with no headers and no fragments): the
// SHA-1 of the JSON object
//
//	{"body": HEX(body), "headers": {}, "method": METHOD, "url": CANONICAL}
//
// serialized as Python's json.dumps(sort_keys=True) does, where METHOD is
// method uppercased ("" means GET), body is taken as UTF-8 bytes, and
// CANONICAL is Canonicalize(RequestURL(rawURL)). Its hex form is what a
// Scrapy JOBDIR's requests.seen file holds, one per line.
//
// It fails when Scrapy would refuse to build the request: no scheme, a bad
// port, a malformed IPv6 host.
func Scrapy(method, rawURL, body string) ([20]byte, error) {
	u, err := ScrapyCanonical(rawURL)
	if err != nil {
		return [20]byte{}, err
	}
	return sha1.Sum(ScrapyJSON(method, u, body)), nil
}

// ScrapyLegacy returns the fingerprint of Scrapy's deprecated
// request_fingerprint(), the "2.6" REQUEST_FINGERPRINTER_IMPLEMENTATION:
// the SHA-1 of METHOD, then CANONICAL, then the body bytes, concatenated
// (same METHOD and CANONICAL as Scrapy). It was the default of Scrapy 2.7
// to 2.11 for projects that did not set the setting, so older JOBDIRs'
// requests.seen files hold these; Scrapy 2.12 removed it.
func ScrapyLegacy(method, rawURL, body string) ([20]byte, error) {
	u, err := ScrapyCanonical(rawURL)
	if err != nil {
		return [20]byte{}, err
	}
	h := sha1.New()
	h.Write([]byte(normMethod(method)))
	h.Write([]byte(u))
	h.Write([]byte(body))
	return [20]byte(h.Sum(nil)), nil
}

// ScrapyCanonical is the URL Scrapy fingerprints for rawURL:
// Canonicalize(RequestURL(rawURL)). It is the canonical form the frontier
// and the dupefilter use, so that their keys and Scrapy's agree.
func ScrapyCanonical(rawURL string) (string, error) {
	u, err := RequestURL(rawURL)
	if err != nil {
		return "", err
	}
	return Canonicalize(u)
}

// Identity is the canonical URL by which the frontier and the
// dupefilter know a request (their keys hash it, with the method and the
// body): ScrapyCanonical of the URL with its host and port written as
// cfetch fetches them and cextract writes links (hostname.SetHost: the
// scheme's default port left out, where Scrapy keeps it; an
// internationalized name in UTS #46 punycode, where Scrapy takes IDNA
// 2003's: straße.test is xn--strae-oqa.test, not strasse.test). So
// http://shop.test:80/a, fetched as http://shop.test/a, is the page a link
// to /a names, and fetched once. A URL whose host is already so written
// (most are) is canonicalized as Scrapy does, byte for byte.
func Identity(rawURL string) (string, error) {
	return ScrapyCanonical(webHost(rawURL))
}

// webHost is rawURL with its host and port as hostname.SetHost writes
// them (percent.ParseURL having decoded its escapes), or rawURL itself
// when they are so written already, or it is no
// http(s) URL net/url reads, or SetHost finds no host in it.
func webHost(rawURL string) string {
	u, err := percent.ParseURL(strings.TrimSpace(rawURL))
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return rawURL
	}
	host := u.Host
	if hostname.SetHost(u) != nil {
		return rawURL
	}
	// A host written with escapes (sh%6Fp.test) was decoded by ParseURL.
	if u.Host == host && (strings.IndexByte(rawURL, '%') < 0 || strings.IndexByte(Host(rawURL), '%') < 0) {
		return rawURL
	}
	return u.String()
}

// ScrapyJSON returns the bytes Scrapy hashes for a request whose canonical
// URL is canonicalURL (see Scrapy).
func ScrapyJSON(method, canonicalURL, body string) []byte {
	b := make([]byte, 0, 64+len(canonicalURL)+2*len(body))
	b = append(b, `{"body": "`...)
	for i := 0; i < len(body); i++ {
		b = append(b, percent.LowerHex[body[i]>>4], percent.LowerHex[body[i]&15])
	}
	b = append(b, `", "headers": {}, "method": `...)
	b = appendPyJSONString(b, normMethod(method))
	b = append(b, `, "url": `...)
	b = appendPyJSONString(b, canonicalURL)
	return append(b, '}')
}

// normMethod is Scrapy's str(method).upper() with GET as the default.
func normMethod(method string) string {
	if method == "" {
		return "GET"
	}
	return strings.ToUpper(method)
}

// appendPyJSONString appends s as Python's json.dumps writes a str with
// ensure_ascii=True: non-ASCII as \uXXXX (surrogate pairs above U+FFFF).
func appendPyJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '"':
			b = append(b, '\\', '"')
		case r == '\\':
			b = append(b, '\\', '\\')
		case r == '\n':
			b = append(b, '\\', 'n')
		case r == '\r':
			b = append(b, '\\', 'r')
		case r == '\t':
			b = append(b, '\\', 't')
		case r == '\b':
			b = append(b, '\\', 'b')
		case r == '\f':
			b = append(b, '\\', 'f')
		case r < 0x20 || (r > 0x7f && r < 0x10000):
			b = append(b, '\\', 'u', percent.LowerHex[r>>12&15], percent.LowerHex[r>>8&15], percent.LowerHex[r>>4&15], percent.LowerHex[r&15])
		case r >= 0x10000:
			r -= 0x10000
			hi, lo := 0xD800+(r>>10), 0xDC00+(r&0x3FF)
			b = append(b, '\\', 'u', percent.LowerHex[hi>>12&15], percent.LowerHex[hi>>8&15], percent.LowerHex[hi>>4&15], percent.LowerHex[hi&15])
			b = append(b, '\\', 'u', percent.LowerHex[lo>>12&15], percent.LowerHex[lo>>8&15], percent.LowerHex[lo>>4&15], percent.LowerHex[lo&15])
		default:
			b = append(b, byte(r))
		}
	}
	return append(b, '"')
}

// Key64 returns a fast 64-bit key (XXH3) for a request whose canonical URL
// is canonicalURL: the storage key of the frontier and the dupefilter.
// method is normalized as in Scrapy ("" is GET, case-insensitive). At 10
// million keys the chance of any collision is about 3 in a million.
func Key64(method, canonicalURL, body string) uint64 {
	m := normMethod(method)
	var arr [512]byte
	buf := arr[:0]
	buf = append(buf, m...)
	buf = append(buf, 0)
	buf = append(buf, canonicalURL...)
	buf = append(buf, 0)
	buf = append(buf, body...)
	return xxh3.Hash(buf)
}

// Host returns the lowercased host name of an absolute URL (no user info,
// no port, no IPv6 brackets, no trailing dot: hostname.Key), or "" when it
// has none. It is the key of the frontier's per-host queues.
func Host(u string) string {
	_, rest, ok := strings.Cut(u, "//")
	if !ok {
		return ""
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	_, hostinfo, found := cutLast(rest, "@")
	if !found {
		hostinfo = rest
	}
	host, _ := splitHostPort(hostinfo)
	if !utf8.ValidString(host) {
		host = strings.ToValidUTF8(host, "\uFFFD")
	}
	return hostname.Key(host)
}

package fingerprint

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Character sets of w3lib.url (RFC 3986 sections 2.2 and 2.3, plus "|").
const (
	genDelims = ":/?#[]@"
	subDelims = "!$&'()*+,;="
)

var (
	safeChars              = newSafe(genDelims + subDelims + "|%")
	pathSafeChars          = newSafe(strings.ReplaceAll(genDelims, "#", "") + subDelims + "|%")
	userinfoSafestChars    = newSafe("!$&'()*+,")
	pathSafestChars        = newSafe(":/?@" + subDelims + "%")
	specialQuerySafestChar = newSafe(":/?@" + strings.ReplaceAll(subDelims, "'", "") + "%")
)

// Canonicalize returns w3lib.url.canonicalize_url(rawURL) (w3lib 2.1, with
// keep_blank_values=True and keep_fragments=False, the arguments Scrapy's
// fingerprint uses), byte for byte:
//
//   - leading and trailing C0 controls and spaces are trimmed, tabs and
//     newlines removed;
//   - the scheme and the whole netloc (user info included) are lowercased;
//     a non-ASCII netloc is IDNA-encoded (IDNA 2003, as Python's "idna"
//     codec; when that fails it is kept as it is); a trailing ":" is dropped
//     but a port, even the default one (":80"), is kept;
//   - the path's escapes are decoded and the path re-escaped, so "%7e" and
//     "~" are the same and hex digits are uppercase; "%2F" and "%3F" stay
//     escaped; non-ASCII becomes UTF-8 escapes; an empty path becomes "/";
//     dot segments ("/a/../b") are NOT resolved;
//   - query arguments (split on "&" and ";") are decoded, sorted by key then
//     value (as bytes), and re-encoded with quote_plus: spaces as "+",
//     everything but letters, digits and "_.-~" escaped; blank values are
//     kept ("?a" becomes "?a=");
//   - the fragment is dropped; ";params" of the last path segment are kept.
//
// It fails only where Python's urlparse raises: unbalanced or invalid
// brackets in the host ("http://[::1/"), or a host that hides a delimiter
// under NFKC normalization. Canonicalize is not always idempotent, exactly
// like w3lib: a path escape of "%" ("/100%2541") decodes one level per call.
func Canonicalize(rawURL string) (string, error) {
	p, err := urlparse(w3libStrip(rawURL))
	if err != nil {
		return "", err
	}
	netloc, err := pyIDNAEncode(p.netloc)
	if err != nil {
		netloc = p.netloc
	}
	path := quote(p.path, pathSafeChars)
	params := quote(p.params, safeChars)
	query := quote(p.query, safeChars)

	pairs := parseQSLBytes(query)
	slices.SortStableFunc(pairs, func(a, b [2]string) int {
		if c := strings.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return strings.Compare(a[1], b[1])
	})
	query = urlencode(pairs)

	path = quote(unquotePath(path), pathSafeChars)
	if path == "" {
		path = "/"
	}
	return urlunparse(parsedURL{
		splitURL: splitURL{
			scheme: p.scheme,
			netloc: strings.TrimRight(pyLower(netloc), ":"),
			path:   path,
			query:  query,
		},
		params: params,
	}), nil
}

// pyLower is Python's str.lower: Go's simple case mapping plus the two
// rules Python takes from SpecialCasing.txt: U+0130 (İ) becomes "i̇", and a
// final capital sigma becomes "ς".
func pyLower(s string) string {
	if isASCII(s) {
		return strings.ToLower(s)
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	if !strings.ContainsAny(s, "\u0130\u03a3") {
		return strings.ToLower(s)
	}
	rs := []rune(s)
	var sb strings.Builder
	for i, r := range rs {
		switch r {
		case '\u0130':
			sb.WriteString("i\u0307")
		case '\u03a3':
			if finalSigma(rs, i) {
				sb.WriteRune('ς')
			} else {
				sb.WriteRune('σ')
			}
		default:
			sb.WriteRune(unicode.ToLower(r))
		}
	}
	return sb.String()
}

// finalSigma is Unicode's Final_Sigma condition at rs[i]: a cased letter
// before it and none after it, skipping case-ignorable characters.
func finalSigma(rs []rune, i int) bool {
	before := false
	for j := i - 1; j >= 0; j-- {
		if caseIgnorable(rs[j]) {
			continue
		}
		before = cased(rs[j])
		break
	}
	if !before {
		return false
	}
	for j := i + 1; j < len(rs); j++ {
		if caseIgnorable(rs[j]) {
			continue
		}
		return !cased(rs[j])
	}
	return true
}

func cased(r rune) bool {
	return unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r) ||
		unicode.Is(unicode.Other_Lowercase, r) || unicode.Is(unicode.Other_Uppercase, r)
}

func caseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', '^', '`', 0x00B7, 0x2018, 0x2019, 0x2024, 0xFE52, 0xFF07, 0xFF0E:
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}

// parseQSLBytes is w3lib's parse_qsl_to_bytes(qs, keep_blank_values=True).
func parseQSLBytes(qs string) [][2]string {
	var out [][2]string
	for _, amp := range strings.Split(qs, "&") {
		for _, nv := range strings.Split(amp, ";") {
			if nv == "" {
				continue
			}
			name, value, _ := strings.Cut(nv, "=")
			out = append(out, [2]string{
				unquoteToBytes(strings.ReplaceAll(name, "+", " ")),
				unquoteToBytes(strings.ReplaceAll(value, "+", " ")),
			})
		}
	}
	return out
}

// urlencode is urllib.parse.urlencode of (bytes, bytes) pairs.
func urlencode(pairs [][2]string) string {
	var sb strings.Builder
	for i, kv := range pairs {
		if i > 0 {
			sb.WriteByte('&')
		}
		sb.WriteString(quotePlus(kv[0]))
		sb.WriteByte('=')
		sb.WriteString(quotePlus(kv[1]))
	}
	return sb.String()
}

// unquotePath is w3lib's _unquotepath: decode every escape but "/" and "?".
func unquotePath(path string) string {
	if strings.Contains(path, "%") {
		path = keepSlashQuestion.Replace(path)
	}
	return unquoteToBytes(path)
}

var keepSlashQuestion = strings.NewReplacer("%2f", "%252F", "%2F", "%252F", "%3f", "%253F", "%3F", "%253F")

// SafeURL returns w3lib.url.safe_url_string(rawURL): the URL Scrapy stores
// in Request.url. Unlike Canonicalize it keeps the query order and the
// fragment, lowercases only the host, IDNA-encodes only the host, escapes
// the user info, and parses the port, failing on one that is not a number
// in 0–65535 (a leading-zero port such as ":080" becomes ":80").
//
// One deliberate difference from w3lib 2.1: an IPv6 (or IPvFuture) host
// keeps its brackets ("http://[::1]:80/"), as on w3lib's main branch
// (scrapy/w3lib#193); w3lib 2.1 writes "http://::1:80/", a URL with no
// host, so Scrapy 2.8 fingerprints of such URLs differ from these.
func SafeURL(rawURL string) (string, error) {
	parts, err := urlsplit(w3libStrip(rawURL))
	if err != nil {
		return "", err
	}
	var netloc strings.Builder
	userinfo, hostinfo, hasUser := cutLast(parts.netloc, "@")
	if !hasUser {
		hostinfo = parts.netloc
	} else {
		user, pass, hasPass := strings.Cut(userinfo, ":")
		netloc.WriteString(quote(unquoteUTF8(user), userinfoSafestChars))
		if hasPass {
			netloc.WriteByte(':')
			netloc.WriteString(quote(unquoteUTF8(pass), userinfoSafestChars))
		}
		netloc.WriteByte('@')
	}
	host, port := splitHostPort(hostinfo)
	switch {
	case host == "":
	case strings.HasPrefix(hostinfo, "["):
		// An IP literal (urlsplit has checked it) keeps its brackets:
		// w3lib 2.1 drops them (scrapy/w3lib#193), which makes
		// "http://[::1]:80/" the host-less "http://::1:80/", the same URL
		// as "http://[::1:80]/".
		netloc.WriteByte('[')
		netloc.WriteString(host)
		netloc.WriteByte(']')
	default:
		if h, err := pyIDNAEncode(host); err == nil {
			netloc.WriteString(h)
		} else {
			netloc.WriteString(host)
		}
	}
	if port != "" {
		for i := 0; i < len(port); i++ {
			if port[i] < '0' || port[i] > '9' {
				return "", fmt.Errorf("port could not be cast to integer value as %q", port)
			}
		}
		digits := strings.TrimLeft(port, "0")
		n := 0
		if len(digits) > 5 {
			n = 1 << 20
		} else if digits != "" {
			n, _ = strconv.Atoi(digits)
		}
		if n > 65535 {
			return "", fmt.Errorf("port out of range 0-65535")
		}
		netloc.WriteByte(':')
		netloc.WriteString(strconv.Itoa(n))
	}
	querySafe := pathSafestChars
	if specialSchemes[parts.scheme] {
		querySafe = specialQuerySafestChar
	}
	return urlunsplit(splitURL{
		scheme:   parts.scheme,
		netloc:   netloc.String(),
		path:     quote(parts.path, pathSafestChars),
		query:    quote(parts.query, querySafe),
		fragment: quote(parts.fragment, pathSafestChars),
	}), nil
}

var specialSchemes = set("ftp", "file", "http", "https", "ws", "wss")

// cutLast is strings.Cut at the last sep (Python's rpartition).
func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return "", s, false
}

// splitHostPort is urllib's _hostinfo plus .hostname's lowercasing: the host
// (without brackets, its IPv6 zone left as is) and the port text.
func splitHostPort(hostinfo string) (host, port string) {
	if _, bracketed, ok := strings.Cut(hostinfo, "["); ok {
		var rest string
		host, rest, _ = strings.Cut(bracketed, "]")
		_, port, _ = strings.Cut(rest, ":")
	} else {
		host, port, _ = strings.Cut(hostinfo, ":")
	}
	h, zone, hasZone := strings.Cut(host, "%")
	host = pyLower(h)
	if hasZone {
		host += "%" + zone
	}
	return host, port
}

// RequestURL returns the URL a Scrapy 2.8 Request holds for rawURL
// (scrapy.Request(rawURL).url): SafeURL, then escape_ajax (a "#!" fragment
// becomes the _escaped_fragment_ query argument). Like Scrapy it fails when
// the result has no "://" (and is not an about: or data: URL).
func RequestURL(rawURL string) (string, error) {
	s, err := SafeURL(rawURL)
	if err != nil {
		return "", err
	}
	s, err = escapeAjax(s)
	if err != nil {
		return "", err
	}
	if !strings.Contains(s, "://") && !strings.HasPrefix(s, "about:") && !strings.HasPrefix(s, "data:") {
		return "", fmt.Errorf("missing scheme in request URL: %s", s)
	}
	return s, nil
}

// escapeAjax is scrapy.utils.url.escape_ajax.
func escapeAjax(u string) (string, error) {
	if !strings.Contains(u, "#") {
		return u, nil
	}
	p, err := urlparse(u)
	if err != nil {
		return "", err
	}
	frag := p.fragment
	if !strings.HasPrefix(frag, "!") {
		return u, nil
	}
	p.fragment = ""
	s, err := urlsplit(urlunparse(p))
	if err != nil {
		return "", err
	}
	const name = "_escaped_fragment_"
	var args [][2]string
	replaced := false
	if s.query != "" {
		for _, nv := range strings.Split(s.query, "&") {
			if nv == "" {
				continue
			}
			k, v, _ := strings.Cut(nv, "=")
			k = unquoteUTF8(strings.ReplaceAll(k, "+", " "))
			v = unquoteUTF8(strings.ReplaceAll(v, "+", " "))
			if k == name {
				if replaced {
					continue
				}
				v, replaced = frag[1:], true
			}
			args = append(args, [2]string{k, v})
		}
	}
	if !replaced {
		args = append(args, [2]string{name, frag[1:]})
	}
	s.query = urlencode(args)
	return urlunsplit(s), nil
}

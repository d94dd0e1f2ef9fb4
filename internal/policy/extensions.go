package policy

import (
	"net/url"
	"strings"
)

// IgnoredExtensions is Scrapy's scrapy.linkextractors.IGNORED_EXTENSIONS
// (as of Scrapy 2.11, with webp): the extensions not followed when neither
// the link rule nor the request names its own deny_extensions.
var IgnoredExtensions = []string{
	// archives
	"7z", "7zip", "bz2", "rar", "tar", "tar.gz", "xz", "zip",
	// images
	"mng", "pct", "bmp", "gif", "jpg", "jpeg", "png", "pst", "psp", "tif", "tiff", "ai", "drw", "dxf", "eps", "ps", "svg", "cdr", "ico", "webp",
	// audio
	"mp3", "wma", "ogg", "wav", "ra", "aac", "mid", "au", "aiff",
	// video
	"3gp", "asf", "asx", "avi", "mov", "mp4", "mpg", "qt", "rm", "swf", "wmv", "m4a", "m4v", "flv", "webm",
	// office suites
	"xls", "xlsx", "ppt", "pptx", "pps", "doc", "docx", "odt", "ods", "odg", "odp",
	// other
	"css", "pdf", "exe", "bin", "rss", "dmg", "iso", "apk",
}

// Extensions is a set of file extensions a URL may not end with. The nil
// (or empty) set denies none.
//
// A URL has an extension when the last segment of its path (without
// ";parameters", as Python's urlparse reads it) has a name before a dot:
// "/a/x.pdf" has pdf, "/a/.pdf" and "/a/x" have none. An extension of
// several parts ("tar.gz") is one entry: the last segment ends with
// ".tar.gz", whatever its case. So "x.tar.gz" is denied by "tar.gz" (and
// would be by "gz"), where Scrapy, which compares only the last part
// (".gz"), never applies its own "tar.gz". The query does not count:
// "/get?f=x.pdf" has no extension.
type Extensions map[string]bool

// DefaultExtensions is IgnoredExtensions as a set; it is not to be changed.
var DefaultExtensions = NewExtensions(IgnoredExtensions)

// NewExtensions makes the set of exts, written with or without a leading
// dot, in any case; blank entries are left out.
func NewExtensions(exts []string) Extensions {
	m := make(Extensions, len(exts))
	for _, e := range exts {
		e = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(e), "."))
		if e != "" {
			m[e] = true
		}
	}
	return m
}

// Match returns the extension of u's path that e denies (lower case,
// without the dot) and true, or "" and false.
func (e Extensions) Match(u *url.URL) (string, bool) {
	return e.MatchPath(u.Path)
}

// MatchPath is Match for a URL path.
func (e Extensions) MatchPath(path string) (string, bool) {
	if len(e) == 0 {
		return "", false
	}
	seg := path[strings.LastIndexByte(path, '/')+1:]
	if i := strings.IndexByte(seg, ';'); i >= 0 {
		seg = seg[:i]
	}
	seg = strings.ToLower(strings.TrimLeft(seg, "."))
	for i := strings.IndexByte(seg, '.'); i >= 0; {
		if ext := seg[i+1:]; e[ext] {
			return ext, true
		}
		j := strings.IndexByte(seg[i+1:], '.')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return "", false
}

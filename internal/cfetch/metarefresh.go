package cfetch

import (
	"bytes"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/crawlutils/crawlutils/internal/record"
)

// metaRefreshScan is how much of a page is searched for a refresh.
const metaRefreshScan = 64 << 10

// metaRefresh returns the target of an HTML page's
// <meta http-equiv="refresh" content="N; url=…"> when its delay is at most
// --meta-refresh-max-delay (Scrapy's MetaRefreshMiddleware), or "". Tags
// inside <script> and <noscript> do not count.
func (f *Fetcher) metaRefresh(out *outcome) string {
	media, declared, _ := mediaTypeOf(out.header, out.body.data)
	if !record.IsHTML(media) {
		return ""
	}
	wait, target, ok := findMetaRefresh(out.body.data)
	if !ok || wait > f.opts.MetaRefreshMaxWait {
		return ""
	}
	if !hasHighBit([]byte(target)) {
		return target
	}
	// Non-ASCII letters, as the page's charset writes them: the path is
	// read in that charset (and sent as UTF-8), the query kept in it, as
	// browsers and Scrapy send them.
	d := decideCharset(out.body.data, declared, true, isXMLMedia(media))
	if d.name == "utf-8" {
		return target
	}
	head := out.body.data[:min(len(out.body.data), metaRefreshScan)]
	_, text, ok := findMetaRefresh(decodeText(d, head))
	if !ok {
		return target
	}
	path, _, _ := strings.Cut(text, "?")
	if _, query, ok := strings.Cut(target, "?"); ok {
		return path + "?" + query
	}
	return path
}

// findMetaRefresh finds the first refresh with a URL in the first 64 KiB
// of an HTML page.
func findMetaRefresh(page []byte) (time.Duration, string, bool) {
	if len(page) > metaRefreshScan {
		page = page[:metaRefreshScan]
	}
	if !containsFoldASCII(page, "refresh") {
		return 0, "", false
	}
	z := html.NewTokenizer(bytes.NewReader(page))
	skip := 0 // depth inside script/noscript
	for {
		switch z.Next() {
		case html.ErrorToken:
			return 0, "", false
		case html.EndTagToken:
			name, _ := z.TagName()
			if a := atom.Lookup(name); (a == atom.Script || a == atom.Noscript) && skip > 0 {
				skip--
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			switch atom.Lookup(name) {
			case atom.Script, atom.Noscript:
				skip++
			case atom.Meta:
				if skip > 0 || !hasAttr {
					continue
				}
				var equiv, content string
				for {
					k, v, more := z.TagAttr()
					switch string(k) {
					case "http-equiv":
						equiv = string(v)
					case "content":
						content = string(v)
					}
					if !more {
						break
					}
				}
				if strings.EqualFold(strings.TrimSpace(equiv), "refresh") {
					if d, u, ok := parseRefresh(content); ok {
						return d, u, true
					}
				}
			}
		}
	}
}

// parseRefresh parses the content of a refresh: "5; url=/next", "0;URL='/x'",
// "3, /next". A refresh without a URL (reload the page) is not ok.
func parseRefresh(content string) (time.Duration, string, bool) {
	s := strings.TrimSpace(content)
	n := 0
	for n < len(s) && (s[n] >= '0' && s[n] <= '9' || s[n] == '.') {
		n++
	}
	if n == 0 {
		return 0, "", false
	}
	secs, err := strconv.ParseFloat(s[:n], 64)
	if err != nil || secs < 0 || secs > 1e9 {
		return 0, "", false
	}
	s = strings.TrimLeft(s[n:], " \t\n\r\f")
	if s == "" || (s[0] != ';' && s[0] != ',') {
		return 0, "", false
	}
	s = strings.TrimLeft(s[1:], " \t\n\r\f")
	if len(s) >= 3 && strings.EqualFold(s[:3], "url") {
		rest := strings.TrimLeft(s[3:], " \t\n\r\f")
		if strings.HasPrefix(rest, "=") {
			s = strings.TrimLeft(rest[1:], " \t\n\r\f")
		}
	}
	if s != "" && (s[0] == '"' || s[0] == '\'') {
		q := s[0]
		s = s[1:]
		if i := strings.IndexByte(s, q); i >= 0 {
			s = s[:i]
		}
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, "", false
	}
	return time.Duration(secs * float64(time.Second)), s, true
}

package main

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// seenSet is the set of canonical URLs requested or redirected to. add is
// atomic: of several goroutines adding one URL, exactly one gets true.
type seenSet struct{ m sync.Map }

func (s *seenSet) add(u string) bool {
	_, loaded := s.m.LoadOrStore(u, struct{}{})
	return !loaded
}

// canonical returns the http(s) URL u without its fragment and with its
// query parameters sorted, or false if u is not one.
func canonical(u string) (string, bool) {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return "", false
	}
	p.Fragment, p.RawFragment = "", ""
	if p.RawQuery != "" {
		params := strings.Split(p.RawQuery, "&")
		slices.Sort(params)
		p.RawQuery = strings.Join(params, "&")
	}
	return p.String(), true
}

// parseRefresh parses a refresh <meta>'s content, "5; url=/next", into
// its delay and URL (w3lib's get_meta_refresh, for the cases that matter).
func parseRefresh(content string) (delay float64, target string, ok bool) {
	n, rest, _ := strings.Cut(content, ";")
	if before, after, comma := strings.Cut(n, ","); comma {
		n, rest = before, after
	}
	delay, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
	if err != nil {
		return 0, "", false
	}
	rest = strings.TrimSpace(rest)
	if len(rest) >= 4 && strings.EqualFold(rest[:4], "url=") {
		rest = strings.TrimSpace(rest[4:])
	}
	rest = strings.Trim(rest, `"'`)
	return delay, rest, rest != ""
}

package robots

import "bytes"

// What of a robots.txt a crawler reads, for cfetch (which obeys the file)
// and cthrottle (which reads its delays) alike.
const (
	// MaxSize is how much of a robots.txt is parsed (RFC 9309 §2.5: at
	// least 500 KiB); see Head.
	MaxSize = 500 << 10
	// MaxRedirects is how many redirects a robots.txt fetch follows (RFC
	// 9309 §2.3.1.2: at least five).
	MaxRedirects = 5
)

// Head returns the part of a robots.txt body that is parsed: all of it
// when it is shorter than MaxSize; else its first MaxSize bytes up to the
// end of their last complete line, so that a line the limit cuts is not
// read as another ("Crawl-delay: 10" as "Crawl-delay: 1", "Disallow:
// /private" as "Disallow: /p"). truncated says that body was cut short of
// the file anyway (a reader stopped at MaxSize): its last line is dropped
// too.
func Head(body []byte, truncated bool) []byte {
	if len(body) > MaxSize {
		body, truncated = body[:MaxSize], true
	}
	if !truncated && len(body) < MaxSize {
		return body
	}
	if i := bytes.LastIndexAny(body, "\r\n"); i >= 0 {
		return body[:i+1]
	}
	return nil
}

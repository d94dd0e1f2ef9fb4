package record

import (
	"strings"
	"unicode/utf8"
)

// IsRequest reports whether the record is a request: of kind "request" (a
// bare URL line is one), or without a kind and with a "url" member, of any
// value, as Scrapy Cluster writes its crawl requests ({"url": …,
// "appid": …, "crawlid": …}). The key is matched as encoding/json matches
// it to Request.URL ("URL" is one too). Such a record is a request however
// badly typed its fields are: a tool that reads requests must then report
// it (Decode says what is wrong), not take it for something else and pass
// it on.
func (e Envelope) IsRequest() bool {
	switch e.Kind {
	case KindRequest:
		return true
	case "":
		has := false
		scanObject(e.Raw, func(key, _ []byte) {
			if !has && isURLKey(key) {
				has = true
			}
		})
		return has
	}
	return false
}

// isURLKey reports whether encoding/json decodes a member with this key
// into a struct field tagged "url" (Unicode simple folding).
func isURLKey(key []byte) bool {
	return len(key) >= 3 && len(key) <= 3*utf8.UTFMax && strings.EqualFold(string(key), "url")
}

package record

import (
	"errors"
	"fmt"
	"strings"
)

// The bounds of a request's numbers, which Decode enforces: a request is
// crawl input, and a hostile or mistaken number must not reach a tool that
// trusts it ("retries": -1000000 once made cfetch retry one URL without
// end). docs/records.md documents them.
const (
	// MaxRetries bounds retries (0 to 100): far above any retry policy
	// (Scrapy's RETRY_TIMES is 2).
	MaxRetries = 100
	// MinPriority and MaxPriority bound priority. The frontier queues a
	// request at priority - depth*DEPTH_PRIORITY and Redis orders by it as
	// a float64 score, exact to 2^53: with these bounds and depth at most
	// MaxDepth, the order stays exact for any DEPTH_PRIORITY up to 10^9
	// either way, and the priority fits a 32-bit int.
	MinPriority = -1_000_000_000
	MaxPriority = 1_000_000_000
	// MaxDepth bounds depth and maxdepth (0 to 1,000,000 links from the
	// seed).
	MaxDepth = 1_000_000
	// MaxExpires bounds expires, in Unix seconds: 9999-12-31T23:59:59Z,
	// the last time RFC 3339 can write. A value in milliseconds by mistake
	// is past it.
	MaxExpires = 253402300799
)

// checkRequestNumbers refuses a request whose numbers are out of their
// bounds, naming the first such field in the order of the fields' table.
func checkRequestNumbers(r *Request) error {
	for _, f := range [...]struct {
		name     string
		v        int64
		min, max int64
	}{
		{"priority", int64(r.Priority), MinPriority, MaxPriority},
		{"depth", int64(r.Depth), 0, MaxDepth},
		{"retries", int64(r.Retries), 0, MaxRetries},
		{"maxdepth", int64(r.MaxDepth), 0, MaxDepth},
		{"expires", r.Expires, 0, MaxExpires},
	} {
		if f.v < f.min || f.v > f.max {
			return fmt.Errorf("field %q: must be between %d and %d, got %d", f.name, f.min, f.max, f.v)
		}
	}
	return nil
}

// errNoURL is CheckURL's error, in the words of every tool's message.
var errNoURL = errors.New(`field "url" is missing or empty`)

// CheckURL refuses a request without a url: the member missing, null, or
// a string of nothing but white space. Every request needs one, whatever
// reads it (docs/records.md, "Bad input"), so each tool that handles
// requests holds them to this one rule, with the same words, after
// Decode. (Decode does not: a response's request is decoded too, and
// cfetch answers a request without a url with a response that holds it.)
// Whether the url is one a tool can use is the tool's to say.
func CheckURL(r *Request) error {
	if strings.TrimSpace(r.URL) == "" {
		return errNoURL
	}
	return nil
}

// CheckItem refuses an item without data, or whose data is not an object
// (docs/records.md: "data", the extracted object). Every tool that handles
// items (cexport writes them, cdedupe keys them) holds them to this one
// rule, with the same words, after Decode has checked the other fields'
// types.
func CheckItem(it *Item) error {
	if len(it.Data) == 0 {
		return errors.New(`field "data" is missing`)
	}
	if it.Data[0] != '{' {
		return fmt.Errorf(`field "data": expected an object, got %s`, valueName(it.Data))
	}
	return nil
}

// valueName says what kind of JSON value v is, with its article.
func valueName(v []byte) string {
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}

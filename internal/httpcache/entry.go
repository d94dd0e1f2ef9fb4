package httpcache

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"golang.org/x/net/http/httpguts"
)

// Entry is one stored response: the metadata file's fields, and the body.
type Entry struct {
	Key      string      `json:"key"`
	Method   string      `json:"method"`
	URL      string      `json:"url"`
	Status   int         `json:"status"`
	Header   http.Header `json:"headers"`
	StoredAt time.Time   `json:"stored_at"`
	Size     int64       `json:"body_size"`
	SHA1     string      `json:"body_sha1"`
	Encoded  bool        `json:"encoded,omitempty"`

	// Body is the stored body (the <key>.body file), Size bytes.
	Body []byte `json:"-"`
}

// decodeCacheMeta parses and checks a metadata file.
func decodeCacheMeta(b []byte) (*Entry, error) {
	var e Entry
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&e); err != nil {
		return nil, err
	}
	switch {
	case len(e.Key) != 40 || strings.Trim(e.Key, "0123456789abcdef") != "":
		return nil, errors.New("bad key")
	case e.Status < 100 || e.Status > 599:
		return nil, errors.New("bad status")
	case e.Size < 0:
		return nil, errors.New("bad size")
	case e.StoredAt.IsZero():
		return nil, errors.New("no stored_at")
	case e.Method == "" || e.URL == "":
		return nil, errors.New("no method or url")
	}
	for name, vals := range e.Header {
		if !sendable(name, vals) {
			return nil, fmt.Errorf("bad header %q", name)
		}
	}
	return &e, nil
}

// sendable reports whether net/http would send the header: a stored
// header is given back to the caller as a response's.
func sendable(name string, values []string) bool {
	if !httpguts.ValidHeaderFieldName(name) {
		return false
	}
	for _, v := range values {
		if !httpguts.ValidHeaderFieldValue(v) {
			return false
		}
	}
	return true
}

// Conditional returns the validators with which to ask the server whether
// the stale entry e still stands: If-None-Match from its ETag and
// If-Modified-Since from its Last-Modified, "" for one it has not.
//
// A Last-Modified not at least one second before the response's Date
// (else before when it was stored) makes both "": the response was sent
// in the second its resource last changed, or claims a change still to
// come (RFC 9110 §8.8.2.2: such a date is a weak validator). A static
// file server dates a file to the second and answers 304 to an
// If-Modified-Since not older than the file, so an edit made later in
// the second the page was fetched, or before a date in the future, would
// be a 304 in every round after; nginx, lighttpd and busybox httpd make
// their ETag of the same date and the size, so an edit that keeps the
// size would be a 304 too. The page is fetched in full instead, and its
// next response has validators. A Last-Modified that cannot be read as a
// date is sent back as it came: the server that wrote it may compare it
// as a string.
func (e *Entry) Conditional() (ifNoneMatch, ifModifiedSince string) {
	ifModifiedSince = e.Header.Get("Last-Modified")
	if modified, ok := parseDate(ifModifiedSince); ok && e.responseDate().Sub(modified) < time.Second {
		return "", ""
	}
	return e.Header.Get("ETag"), ifModifiedSince
}

// parseDate reads an HTTP date (http.ParseTime's three formats), or one
// with a numeric zone, as PHP's date('r') writes Last-Modified
// ("Thu, 21 Dec 2000 16:01:07 +0200").
func parseDate(v string) (time.Time, bool) {
	if t, err := http.ParseTime(v); err == nil {
		return t, true
	}
	t, err := time.Parse(time.RFC1123Z, v)
	return t, err == nil
}

// responseDate is when the server sent e: its Date, else when it was
// stored.
func (e *Entry) responseDate() time.Time {
	if d, err := http.ParseTime(e.Header.Get("Date")); err == nil {
		return d
	}
	return e.StoredAt
}

// MustRevalidate reports whether a stale e may not stand in for a
// response when the server fails (Cache-Control must-revalidate, RFC 9111
// §4.2.4).
func (e *Entry) MustRevalidate() bool {
	_, ok := parseCacheControl(e.Header.Values("Cache-Control"))["must-revalidate"]
	return ok
}

package httpcache

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// FuzzConditional holds Entry.Conditional to Go's own file server
// (http.ServeContent) over dates in every form a server writes them (the
// three of HTTP, a numeric zone as PHP writes them, not a date, none):
//   - If-Modified-Since is the stored Last-Modified or nothing, and the
//     ETag goes back as it came, or not at all with a Last-Modified in the
//     second of the response's date (its Date, else when it was stored) or
//     after it;
//   - a page edited after the response was sent (in the second of its
//     date too) is never answered 304 Not Modified to the
//     If-Modified-Since sent;
//   - a Last-Modified at least a second before that date, or not a date at
//     all, is sent back as it came, and the ETag with it (no validator is
//     dropped that could stand).
func FuzzConditional(f *testing.F) {
	stored := time.Date(2026, 12, 7, 22, 0, 0, 0, time.UTC).Unix()
	f.Add(stored, stored-3600, stored, int64(1), uint8(0), uint8(0), `W/"a"`)
	f.Add(stored, stored+1, stored, int64(1), uint8(0), uint8(0), `"b"`)
	f.Add(stored, stored+86400*365*70, stored, int64(5), uint8(0), uint8(1), "")
	f.Add(stored, stored+5400, stored, int64(1), uint8(0), uint8(3), "")
	f.Add(stored, stored+1800, stored, int64(1), uint8(0), uint8(4), "")
	f.Add(stored, stored, stored+60, int64(30), uint8(6), uint8(0), "")
	f.Add(stored, stored+30, stored+60, int64(10), uint8(3), uint8(0), "")
	f.Add(stored, stored, stored, int64(1), uint8(0), uint8(5), "")
	f.Add(stored, stored-86400, stored, int64(1), uint8(2), uint8(1), "")
	f.Add(stored, stored, stored, int64(500), uint8(0), uint8(0), `"5f3e4a1b-1a2"`)
	forms := []func(time.Time) string{
		func(t time.Time) string { return t.UTC().Format(http.TimeFormat) },
		func(t time.Time) string { return t.UTC().Format(time.RFC850) },
		func(t time.Time) string { return t.UTC().Format(time.ANSIC) },
		func(t time.Time) string { return t.In(time.FixedZone("", 2*3600)).Format(time.RFC1123Z) },
		func(t time.Time) string { return t.UTC().Format(time.RFC1123Z) },
		func(time.Time) string { return "yesterday" },
		func(time.Time) string { return "" },
	}
	// Dates from 1970 to 2200, in whole seconds.
	clamp := func(s int64) time.Time { return time.Unix(((s%7258118400)+7258118400)%7258118400, 0) }
	f.Fuzz(func(t *testing.T, date, lastModified, storedAt, editedAfter int64, dateForm, lmForm uint8, etag string) {
		h := http.Header{}
		if etag != "" {
			h.Set("ETag", etag)
		}
		if v := forms[int(dateForm)%len(forms)](clamp(date)); v != "" {
			h.Set("Date", v)
		}
		lm := forms[int(lmForm)%len(forms)](clamp(lastModified))
		if lm != "" {
			h.Set("Last-Modified", lm)
		}
		e := &Entry{Header: h, StoredAt: clamp(storedAt)}
		inm, ims := e.Conditional()
		if inm != "" && inm != h.Get("ETag") || ims != "" && ims != h.Get("Last-Modified") {
			t.Fatalf("Conditional() = %q, %q from ETag %q, Last-Modified %q", inm, ims, h.Get("ETag"), h.Get("Last-Modified"))
		}

		sent, err := http.ParseTime(h.Get("Date"))
		if err != nil {
			sent = e.StoredAt
		}
		// Sent within the second of its date, edited after that: in the
		// same second too (the server dates the file to the second).
		edited := sent.Add(time.Duration(1+(editedAfter%86400000+86400000)%86400000) * time.Millisecond)
		req := httptest.NewRequest(http.MethodGet, "http://a.test/page", nil)
		if ims != "" {
			req.Header.Set("If-Modified-Since", ims)
		}
		// (If-None-Match is left out: the edited page has another ETag, and
		// with one net/http would not look at If-Modified-Since.)
		w := httptest.NewRecorder()
		http.ServeContent(w, req, "page", edited, strings.NewReader("edited"))
		if w.Code == http.StatusNotModified {
			t.Fatalf("Date %q, Last-Modified %q, stored %s: If-Modified-Since %q got a 304 for the page edited at %s",
				h.Get("Date"), lm, e.StoredAt.UTC(), ims, edited.UTC())
		}

		modified, ok := parseDate(lm)
		if (lm == "" || !ok || sent.Sub(modified) >= time.Second) && (ims != lm || inm != h.Get("ETag")) {
			t.Fatalf("Date %q, Last-Modified %q, ETag %q, stored %s: If-None-Match %q, If-Modified-Since %q, want both sent",
				h.Get("Date"), lm, h.Get("ETag"), e.StoredAt.UTC(), inm, ims)
		}
	})
}

package record

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// benchRequest is a request as cqueue pop writes it: crawl identity and
// policy, attrs and a lease.
const benchRequest = `{"kind":"request","url":"https://books.example/catalogue/category/books/poetry_23/page-2.html",` +
	`"priority":-1,"depth":2,"referer":"https://books.example/catalogue/category/books/poetry_23/index.html",` +
	`"crawlid":"books-2026-05","appid":"shop","maxdepth":4,"allowed_domains":["books.example"],` +
	`"deny_extensions":["pdf","zip"],"attrs":{"category":"poetry","page":2},"lease":"01JQ8ZK3V6M2T9XG4R7B5N0WYD"}`

// benchResponse is a response as cfetch writes it, with a body of about
// 50 KB of HTML (quotes and newlines escaped, some non-ASCII text).
func benchResponse(tb testing.TB) []byte {
	var body strings.Builder
	body.WriteString("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>A Light in the Attic</title></head>\n<body>")
	for i := 0; body.Len() < 50<<10; i++ {
		fmt.Fprintf(&body, "<div class=\"review\"><h4><a href=\"/reviews/%d#r\">Review %d</a></h4>\n"+
			"<p class=\"text\">Lovely poems — read them to my kids every night, £%d.</p></div>\n", i, i, i)
	}
	body.WriteString("</body></html>\n")
	resp := Response{
		Kind:    KindResponse,
		URL:     "https://books.example/catalogue/a-light-in-the-attic_1000/index.html",
		Request: json.RawMessage(benchRequest),
		Status:  200,
		Headers: map[string]string{"content-type": "text/html; charset=utf-8", "date": "Sat, 21 Nov 2026 06:02:32 GMT",
			"content-length": fmt.Sprint(body.Len()), "vary": "Accept-Encoding"},
		Body:      body.String(),
		Encoding:  "utf-8",
		Size:      int64(body.Len()),
		LatencyMS: 12.5, DurationMS: 31.25,
		FetchedAt: "2026-11-21T06:02:32Z",
	}
	line, err := Encode(&resp)
	if err != nil {
		tb.Fatal(err)
	}
	return line[:len(line)-1]
}

func BenchmarkParse(b *testing.B) {
	for _, c := range []struct {
		name string
		line []byte
	}{
		{"request", []byte(benchRequest)},
		{"response50KB", benchResponse(b)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.line)))
			b.ReportAllocs()
			for b.Loop() {
				env, err := Parse(c.line)
				if err != nil || env.Kind == "" {
					b.Fatal(env, err)
				}
			}
		})
	}
}

// BenchmarkMend is what Encode pays per raw member (attrs, a response's
// request, item data) that needs no mending: a pass for UTF-8 and a
// bytes.IndexByte per backslash. (Parse finds lone surrogates in the pass
// that validates the line: BenchmarkParse.)
func BenchmarkMend(b *testing.B) {
	for _, c := range []struct {
		name string
		line []byte
	}{
		{"request", []byte(benchRequest)},
		{"response50KB", benchResponse(b)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.line)))
			for b.Loop() {
				if out := Mend(c.line); len(out) != len(c.line) {
					b.Fatal(len(out))
				}
			}
		})
	}
}

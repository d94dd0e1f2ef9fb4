package record

import "testing"

// benchFollowUp is a follow-up request as cextract writes it: crawl
// identity, depth, policy, priority, referer and small attrs.
const benchFollowUp = `{"kind":"request","url":"https://books.example/catalogue/category/books/poetry_23/page-3.html",` +
	`"priority":-2,"depth":3,"referer":"https://books.example/catalogue/category/books/poetry_23/page-2.html",` +
	`"crawlid":"books-2026-05","appid":"shop","maxdepth":4,"attrs":{"category":"poetry","page":3}}`

// benchRequests are the requests the benchmarks decode and encode.
var benchRequests = []struct{ name, line string }{
	{"followup", benchFollowUp},
	{"popped", benchRequest},
}

func BenchmarkDecodeRequest(b *testing.B) {
	for _, c := range benchRequests {
		b.Run(c.name, func(b *testing.B) {
			raw := []byte(c.line)
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				var r Request
				if err := Decode(raw, &r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkEncodeRequest(b *testing.B) {
	for _, c := range benchRequests {
		b.Run(c.name, func(b *testing.B) {
			var r Request
			if err := Decode([]byte(c.line), &r); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Encode(&r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

package record

import (
	"testing"
)

// BenchmarkUnquote decodes the body of a response as cfetch writes it:
// about 50 KB of HTML, quotes and newlines escaped, some non-ASCII text.
func BenchmarkUnquote(b *testing.B) {
	fields, ok := ScanObject(benchResponse(b))
	if !ok {
		b.Fatal("benchResponse is not an object")
	}
	var body []byte
	for _, f := range fields {
		if f.Key == "body" {
			body = f.Value
		}
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := Unquote(body); !ok {
			b.Fatal("Unquote failed")
		}
	}
}

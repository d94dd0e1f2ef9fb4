package cfetch

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkFetchSmallPage runs the whole pipeline in-process — reading,
// fetching at --concurrency 16 from a loopback server, decoding, encoding,
// writing — and reports requests per second.
func BenchmarkFetchSmallPage(b *testing.B) {
	page := "<!DOCTYPE html><html><head><meta charset=utf-8><title>bench</title></head><body>" +
		strings.Repeat("<p>Some text for the page, café.</p>", 50) + "</body></html>"
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, page)
	}))
	defer s.Close()
	in := strings.Repeat(`{"kind":"request","url":"`+s.URL+`/page","crawlid":"bench"}`+"\n", b.N)
	b.ReportAllocs()
	b.ResetTimer()
	code := Run(context.Background(), []string{"-q", "--concurrency", "16"}, strings.NewReader(in), io.Discard, io.Discard)
	b.StopTimer()
	if code != 0 {
		b.Fatalf("exit %d", code)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}

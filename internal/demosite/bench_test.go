package demosite

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// BenchmarkLoopback measures requests per second over loopback HTTP with
// keep-alive clients. Client and server share the machine, so this is a
// lower bound on what the server alone can do.
func BenchmarkLoopback(b *testing.B) {
	s := New(Options{})
	var paths []string
	for _, it := range s.items {
		if !it.discontinued && it.failure == failNone {
			paths = append(paths, it.URL)
		}
	}
	srv := httptest.NewServer(s)
	defer srv.Close()
	for _, bc := range []struct {
		name  string
		paths []string
	}{
		{"robots", []string{"/robots.txt"}},
		{"product", paths},
		{"listing", []string{"/category/books/", "/category/books/page-2.html", "/category/tools/"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}}
			defer client.CloseIdleConnections()
			// Warm the page cache.
			for _, p := range bc.paths {
				resp, err := client.Get(srv.URL + p)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			var next atomic.Int64
			b.SetParallelism(4)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					p := bc.paths[int(next.Add(1))%len(bc.paths)]
					resp, err := client.Get(srv.URL + p)
					if err != nil {
						b.Error(err)
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
		})
	}
}

// BenchmarkServeHTTP measures the handler alone on cached product pages.
func BenchmarkServeHTTP(b *testing.B) {
	s := New(Options{})
	req := httptest.NewRequest("GET", s.items[1].URL, nil)
	w := &recorder{header: http.Header{}}
	s.ServeHTTP(w, req)
	b.ResetTimer()
	for b.Loop() {
		w.body.Reset()
		s.ServeHTTP(w, req)
	}
}

// BenchmarkNew measures building the default site.
func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		New(Options{})
	}
}

package cfetch

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/demosite"
)

// BenchmarkFetchSmallPage runs the whole pipeline in-process — reading,
// fetching at --concurrency 16 and --per-host 16 from a loopback server, decoding, encoding,
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
	code := execute(context.Background(), []string{"-q", "--concurrency", "16", "--per-host", "16"}, strings.NewReader(in), io.Discard, io.Discard)
	b.StopTimer()
	if code != 0 {
		b.Fatalf("exit %d", code)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}

// BenchmarkTenHostsOneSlow measures what one slow site costs the others:
// nine virtual hosts serving the demo site, fetched alone, then again with
// a tenth host whose every answer takes 2 s, the requests of all ten
// interleaved. It reports the nine fast hosts' pages per second in both
// runs and their ratio (the target is at least 0.8). Run it with
// -benchtime 1x: each run is a whole crawl.
func BenchmarkTenHostsOneSlow(b *testing.B) {
	site := demosite.New(demosite.Options{Products: 300})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Host, "slow.") {
			select {
			case <-time.After(2 * time.Second):
			case <-r.Context().Done():
				return
			}
		}
		site.ServeHTTP(w, r)
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	const perHost = 1000
	paths := make([]string, 0, perHost)
	for _, p := range site.Truth() {
		paths = append(paths, p.URL)
	}
	input := func(withSlow bool) string {
		var in strings.Builder
		for i := range perHost {
			for h := range 10 {
				host := fmt.Sprintf("fast%d.test", h)
				if h == 9 {
					if !withSlow {
						continue
					}
					host = "slow.test"
				}
				fmt.Fprintf(&in, "http://%s:%s%s?n=%d\n", host, port, paths[i%len(paths)], i)
			}
		}
		return in.String()
	}
	args := []string{"-q", "--concurrency", "16", "--resolve", "*:" + port + ":127.0.0.1"}
	var alone, with float64
	for range b.N {
		alone = fastRate(b, args, input(false), 9*perHost)
		with = fastRate(b, args, input(true), 9*perHost)
	}
	b.ReportMetric(alone, "fast-pages/s-alone")
	b.ReportMetric(with, "fast-pages/s-with-slow")
	b.ReportMetric(with/alone, "ratio")
}

// fastRate runs cfetch on in and returns the fast hosts' responses per
// second, from the start to the last of them; then it interrupts the run
// (the slow host's requests are not waited for).
func fastRate(b *testing.B, args []string, in string, want int) float64 {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	stdout, out := io.Pipe()
	done := make(chan int, 1)
	start := time.Now()
	go func() {
		done <- execute(ctx, args, strings.NewReader(in), out, io.Discard)
		out.Close()
	}()
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 64<<20)
	n := 0
	var last time.Time
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"url":"http://fast`) {
			if n++; n == want {
				last = time.Now()
				cancel(cli.ErrInterrupted)
			}
		}
	}
	<-done
	if n < want {
		b.Fatalf("%d fast responses, want %d", n, want)
	}
	return float64(want) / last.Sub(start).Seconds()
}

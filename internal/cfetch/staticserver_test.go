package cfetch

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/statictest"
)

// staticServers are the static file servers users crawl, each started
// over a directory: Go's http.FileServer, and python3 -m http.server in
// HTTP/1.0 and 1.1 (with the integration tests).
var staticServers = []struct {
	name  string
	start func(t *testing.T, dir string) string // the server's URL
}{
	{"http.FileServer", func(t *testing.T, dir string) string {
		s := httptest.NewServer(http.FileServer(http.Dir(dir)))
		t.Cleanup(s.Close)
		return s.URL
	}},
	{"python3 http.server", func(t *testing.T, dir string) string { return statictest.Python(t, dir, "") }},
	{"python3 http.server HTTP/1.1", func(t *testing.T, dir string) string { return statictest.Python(t, dir, "HTTP/1.1") }},
}

// TestStaticServerEditInTheSecondFetched: a page edited in the second it
// was fetched (a site generator still writing while the crawl runs) is
// fetched in full the next time, never answered 304. A static server
// dates the file to the second, so its Last-Modified was the response's
// Date, and it answers 304 to an If-Modified-Since not older than the
// file: sent back, that date made the edit (of the same size) a 304 in
// every run after, until the file changed again in a later second.
func TestStaticServerEditInTheSecondFetched(t *testing.T) {
	t.Parallel()
	for _, srv := range staticServers {
		t.Run(srv.name, func(t *testing.T) {
			t.Parallel()
			site := t.TempDir()
			page := filepath.Join(site, "page.html")
			u := srv.start(t, site) + "/page.html\n"
			// Write, fetch and edit within one second: a busy machine may
			// take longer, and the case did not happen; try again.
			for attempt := 1; ; attempt++ {
				cache := t.TempDir()
				args := []string{"--cache-dir", cache, "--cache-policy", "rfc9111"}
				if err := os.WriteFile(page, []byte("<title>v1</title>"), 0o644); err != nil {
					t.Fatal(err)
				}
				first := runCfetch(t, u, args...).one(t)
				if err := os.WriteFile(page, []byte("<title>v2</title>"), 0o644); err != nil {
					t.Fatal(err)
				}
				fi, err := os.Stat(page)
				if err != nil {
					t.Fatal(err)
				}
				date, err := http.ParseTime(first.Headers["date"])
				if err != nil || first.Body != "<title>v1</title>" {
					t.Fatalf("first fetch: %+v", first)
				}
				if first.Headers["last-modified"] != first.Headers["date"] || !fi.ModTime().Truncate(time.Second).Equal(date) {
					if attempt == 20 {
						t.Skipf("20 times the second changed between the writes and the fetch (the machine is busy)")
					}
					continue
				}
				second := runCfetch(t, u, args...).one(t)
				if second.Status != 200 || second.Unchanged || second.Body != "<title>v2</title>" {
					t.Fatalf("the page edited in the second it was fetched (Last-Modified %s): status %d, unchanged %v, body %q; want the edit",
						first.Headers["last-modified"], second.Status, second.Unchanged, second.Body)
				}
				third := runCfetch(t, u, args...).one(t)
				if third.Body != "<title>v2</title>" {
					t.Fatalf("third fetch: %+v", third)
				}
				return
			}
		})
	}
}

// TestStaticServerFileWithoutExtension: a file without an extension is
// typed by its bytes, as Scrapy's responsetypes and Go's FileServer type
// it: python3 -m http.server sends application/octet-stream for it, and
// cfetch wrote an HTML page so typed as base64, which cextract skipped
// ("binary body"): its items and links were lost. Text is text; bytes
// that are no text stay binary.
func TestStaticServerFileWithoutExtension(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"page":   "<!doctype html><html><head><title>Caf\u00e9</title></head><body><a href=\"/x\">x</a></body></html>",
		"README": "Read me first.\n",
		"blob":   "\x00\x01\x02binary\xff",
	}
	for _, srv := range staticServers {
		t.Run(srv.name, func(t *testing.T) {
			t.Parallel()
			site := t.TempDir()
			var in string
			for name, content := range files {
				if err := os.WriteFile(filepath.Join(site, name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			u := srv.start(t, site)
			for name := range files {
				in += u + "/" + name + "\n"
			}
			res := runCfetch(t, in)
			if len(res.resps) != len(files) {
				t.Fatalf("%d responses, want %d: %s", len(res.resps), len(files), res.stderr)
			}
			for _, r := range res.resps {
				name := r.URL[len(u)+1:]
				text := name != "blob"
				got := r.Body
				if !text {
					b, err := base64.StdEncoding.DecodeString(r.BodyBase64)
					if err != nil {
						t.Fatal(err)
					}
					got = string(b)
				}
				if r.Status != 200 || got != files[name] || (r.Body != "") != text || (r.Encoding != "") != text {
					t.Errorf("%s (Content-Type %q): status %d, body %q, body_base64 %q, encoding %q; want it as %s",
						name, r.Headers["content-type"], r.Status, r.Body, r.BodyBase64, r.Encoding, map[bool]string{true: "text", false: "binary"}[text])
				}
			}
		})
	}
}

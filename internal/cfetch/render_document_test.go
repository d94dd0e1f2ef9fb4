package cfetch

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestRenderNotAPage: a document asked for with --render that is not a
// page (a PDF, JSON, plain text, a download, an image) comes back as the
// server sent it, at once, with "rendered": false, from the one request
// the browser made: not the browser's viewer page around it, not an empty
// body after --render-timeout. A page (HTML) is still rendered, a
// redirect to a PDF followed, a PDF over --max-size refused.
func TestRenderNotAPage(t *testing.T) {
	needBrowser(t)
	pdf := []byte("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n")
	var hits hitCounter
	mux := http.NewServeMux()
	serve := func(ctype, disp string, body []byte, gz bool) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			hits.add(r.URL.Path)
			w.Header().Set("Content-Type", ctype)
			if disp != "" {
				w.Header().Set("Content-Disposition", disp)
			}
			if gz {
				var b bytes.Buffer
				zw := gzip.NewWriter(&b)
				zw.Write(body)
				zw.Close()
				w.Header().Set("Content-Encoding", "gzip")
				body = b.Bytes()
			}
			w.Write(body)
		}
	}
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, _ *http.Request) {})
	mux.HandleFunc("/doc.pdf", serve("application/pdf", "", pdf, false))
	mux.HandleFunc("/big.pdf", serve("application/pdf", "", bytes.Repeat([]byte("x"), 200_000), false))
	mux.HandleFunc("/api.json", serve("application/json", "", []byte(`{"items":[1,2,3],"note":"<b>not html</b>"}`), true))
	mux.HandleFunc("/notes.txt", serve("text/plain; charset=iso-8859-1", "", []byte("caf\xe9 menu\n"), false))
	mux.HandleFunc("/export", serve("text/html; charset=utf-8", "attachment; filename=export.html", []byte("<p>saved, not shown</p>"), false))
	mux.HandleFunc("/logo.png", serve("image/png", "", []byte("\x89PNG\r\n\x1a\nnot really"), false))
	mux.HandleFunc("/feed.xml", serve("application/xml", "", []byte(`<?xml version="1.0"?><feed><title>News</title></feed>`), false))
	mux.HandleFunc("/page", serve("text/html; charset=utf-8", "", []byte(`<!doctype html><html><body><script>document.body.className='built'</script></body></html>`), false))
	mux.HandleFunc("/old.pdf", func(w http.ResponseWriter, r *http.Request) {
		hits.add(r.URL.Path)
		http.Redirect(w, r, "/doc.pdf", http.StatusMovedPermanently)
	})
	s := httptest.NewServer(mux)
	defer s.Close()

	input := ""
	for _, p := range []string{"/doc.pdf", "/api.json", "/notes.txt", "/export", "/logo.png", "/feed.xml", "/page", "/old.pdf"} {
		input += s.URL + p + "\n"
	}
	start := time.Now()
	recs := runRecords(t, []string{"-q", "--render", "--render-timeout", "60s", "-c", "1"}, input)
	if took := time.Since(start); took > 50*time.Second {
		t.Errorf("took %v: a document waited for --render-timeout", took)
	}
	byURL := map[string]map[string]any{}
	for _, r := range recs {
		byURL[strings.TrimPrefix(r["url"].(string), s.URL)] = r
	}
	check := func(path string, rendered bool, want func(r map[string]any) string) {
		t.Helper()
		r := byURL[path]
		if r == nil {
			t.Errorf("%s: no record (have %v)", path, keys(byURL))
			return
		}
		if r["status"] != 200.0 || r["rendered"] != rendered {
			t.Errorf("%s: status %v, rendered %v; want 200, %v", path, r["status"], r["rendered"], rendered)
		}
		if msg := want(r); msg != "" {
			t.Errorf("%s: %s\n%v", path, msg, r)
		}
	}
	check("/doc.pdf", false, func(r map[string]any) string {
		if got, _ := base64.StdEncoding.DecodeString(fmt.Sprint(r["body_base64"])); !bytes.Equal(got, pdf) {
			return "body_base64 is not the PDF"
		}
		return ""
	})
	check("/api.json", false, func(r map[string]any) string {
		if r["body"] != `{"items":[1,2,3],"note":"<b>not html</b>"}` {
			return "body is not the JSON as sent"
		}
		return ""
	})
	check("/notes.txt", false, func(r map[string]any) string {
		if r["body"] != "café menu\n" {
			return "body is not the text, converted from its charset"
		}
		return ""
	})
	check("/export", false, func(r map[string]any) string {
		if r["body"] != "<p>saved, not shown</p>" {
			return "body is not the attachment as sent"
		}
		return ""
	})
	check("/logo.png", false, func(r map[string]any) string { return "" })
	check("/feed.xml", false, func(r map[string]any) string {
		if r["body"] != `<?xml version="1.0"?><feed><title>News</title></feed>` {
			return "XML not as sent (the browser shows it in its XML viewer)"
		}
		return ""
	})
	check("/page", true, func(r map[string]any) string {
		if !strings.Contains(fmt.Sprint(r["body"]), `class="built"`) {
			return "the page was not rendered"
		}
		return ""
	})
	// The redirect to the PDF: its record is the PDF's, with the hop.
	var viaRedirect map[string]any
	for _, r := range recs {
		if rd, ok := r["redirects"].([]any); ok && len(rd) == 1 {
			viaRedirect = r
		}
	}
	if viaRedirect == nil || viaRedirect["rendered"] != false || viaRedirect["body_base64"] == nil {
		t.Errorf("the redirect to the PDF: %v", viaRedirect)
	}
	// One request per document: the browser's, none again by cfetch.
	for _, p := range []string{"/doc.pdf", "/api.json", "/notes.txt", "/export", "/logo.png", "/feed.xml"} {
		want := 1
		if p == "/doc.pdf" {
			want = 2 // asked for directly, and after /old.pdf's redirect
		}
		if n := hits.get(p); n != want {
			t.Errorf("%s reached the server %d times, want %d", p, n, want)
		}
	}

	// Over --max-size: refused from its Content-Length, as without --render.
	recs = runRecords(t, []string{"-q", "--render", "--max-size", "100KB"}, s.URL+"/big.pdf\n")
	if len(recs) != 1 || recs[0]["error"] != "too_large" || recs[0]["rendered"] != false {
		t.Errorf("--max-size 100KB, a 200 KB PDF: %v", recs)
	}
}

// hitCounter counts requests by path.
type hitCounter struct {
	mu sync.Mutex
	m  map[string]int
}

func (c *hitCounter) add(p string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]int{}
	}
	c.m[p]++
}

func (c *hitCounter) get(p string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[p]
}

func keys(m map[string]map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

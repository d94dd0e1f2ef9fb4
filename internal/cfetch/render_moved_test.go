package cfetch

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestRenderPageThatMovesOn: a page that moves on by itself as it loads
// (location.replace in an inline script, or a client-side router's
// history.replaceState) is taken where it ends up, and its record's url is
// that place, so that its relative links resolve as the browser resolves
// them; a warning says the status and headers are the first document's.
// A page that changes only its fragment keeps its URL.
func TestRenderPageThatMovesOn(t *testing.T) {
	needBrowser(t)
	mux := http.NewServeMux()
	html := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, body)
		}
	}
	mux.HandleFunc("/robots.txt", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("/old/start", html(`<!doctype html><html><body><script>location.replace('/new/landing')</script></body></html>`))
	mux.HandleFunc("/new/landing", html(`<!doctype html><html><body><a href="next">next</a><script>document.body.className='landed'</script></body></html>`))
	mux.HandleFunc("/app/", html(`<!doctype html><html><body><script>history.replaceState({}, '', '/app/home'); document.body.className='routed'</script></body></html>`))
	mux.HandleFunc("/frag", html(`<!doctype html><html><body><script>location.hash = 'top'; document.body.className='hashed'</script></body></html>`))
	s := httptest.NewServer(mux)
	defer s.Close()

	in := s.URL + "/old/start\n" + s.URL + "/app/\n" + s.URL + "/frag\n"
	recs := runRecords(t, []string{"-q", "--render", "--render-wait", "css:body[class]", "-c", "1"}, in)
	byRequest := map[string]map[string]any{}
	for _, r := range recs {
		req, _ := r["request"].(map[string]any)
		byRequest[strings.TrimPrefix(fmt.Sprint(req["url"]), s.URL)] = r
	}
	for _, c := range []struct{ request, url, class string }{
		{"/old/start", "/new/landing", "landed"},
		{"/app/", "/app/home", "routed"},
		{"/frag", "/frag", "hashed"},
	} {
		r := byRequest[c.request]
		if r == nil {
			t.Errorf("%s: no record", c.request)
			continue
		}
		if got := strings.TrimPrefix(fmt.Sprint(r["url"]), s.URL); got != c.url {
			t.Errorf("%s: url %s, want %s", c.request, got, c.url)
		}
		if !strings.Contains(fmt.Sprint(r["body"]), `class="`+c.class+`"`) {
			t.Errorf("%s: the DOM is not the page it ended as: %v", c.request, r["body"])
		}
		moved := strings.Contains(fmt.Sprint(r["warnings"]), "moved on")
		if moved != (c.url != c.request) {
			t.Errorf("%s: warnings %v", c.request, r["warnings"])
		}
	}
}

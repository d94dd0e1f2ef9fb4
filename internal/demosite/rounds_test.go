package demosite

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestRounds: in a round the pages carry validators and answer 304 to a
// matching conditional request, products appear, disappear and change
// price as documented, and Truth follows; round 0 sends no validator.
func TestRounds(t *testing.T) {
	s := New(Options{Products: 300})
	srv := httptest.NewServer(s)
	defer srv.Close()
	get := func(path string, hdr ...string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err == nil && resp.StatusCode >= 500 || err != nil {
			// A one-time failure: the second request is answered.
			if err == nil {
				resp.Body.Close()
			}
			resp, err = http.DefaultTransport.RoundTrip(req)
		}
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	byID := map[int]Product{}
	for _, p := range s.Truth() {
		byID[s.ProductID(p.URL)] = p
	}
	// Product 1 (ETag), 6 (Last-Modified), 3 (none); 40 appears in round 2.
	if r := get(byID[1].URL); r.Header.Get("ETag") != "" || r.Header.Get("Last-Modified") != "" {
		t.Fatalf("round 0 sends validators: %v", r.Header)
	}
	s.SetRound(1)
	if _, ok := byID[40]; !ok {
		t.Fatal("product 40 not in round 0's truth")
	}
	etag := get(byID[1].URL).Header.Get("ETag")
	if etag == "" {
		t.Fatal("round 1: no ETag")
	}
	for _, c := range []struct {
		path   string
		hdr    []string
		status int
	}{
		{byID[1].URL, []string{"If-None-Match", etag}, 304},
		{byID[1].URL, []string{"If-None-Match", `"other"`}, 200},
		{byID[6].URL, []string{"If-Modified-Since", "Thu, 01 Jan 2026 00:00:00 GMT"}, 304},
		{byID[6].URL, []string{"If-Modified-Since", "Wed, 31 Dec 2025 00:00:00 GMT"}, 200},
		{byID[3].URL, []string{"If-None-Match", "*"}, 200},
		{byID[40].URL, nil, 404},
		{"/", []string{"If-None-Match", get("/").Header.Get("ETag")}, 304},
	} {
		if got := get(c.path, c.hdr...).StatusCode; got != c.status {
			t.Errorf("round 1: GET %s %v: %d, want %d", c.path, c.hdr, got, c.status)
		}
	}
	absent := 0
	for id := range byID {
		if absentIn(id, 1) {
			absent++
		}
	}
	if n := len(s.Truth()); absent == 0 || n != len(byID)-absent {
		t.Errorf("round 1 truth: %d products, want %d", n, len(byID)-absent)
	}
	s.SetRound(2)
	changed := 0
	for id, p := range byID {
		want := RoundPrice(id, p.Price, 2)
		if RoundChange(id, 2) == "price" {
			changed++
			if want == p.Price {
				t.Errorf("product %d: price change in round 2 but the same price", id)
			}
		}
		status := get(p.URL, "If-None-Match", etag).StatusCode
		if absentIn(id, 2) != (status == 404) {
			t.Errorf("round 2: product %d answers %d", id, status)
		}
	}
	if changed == 0 {
		t.Error("no price changes in round 2")
	}
	if got := get(byID[1].URL, "If-None-Match", etag).StatusCode; (RoundChange(1, 2) == "price") != (got == 200) {
		t.Errorf("round 2: product 1 answers %d to its round 1 ETag", got)
	}
}

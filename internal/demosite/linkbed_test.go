package demosite

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestLinkBedServes: the index links every page of the link test bed;
// each page answers 200, each target once counted (a POST one as
// "POST …"), robots.txt disallows the robots cases' targets, and
// /__demosite/linkbed reports the cases and the counts.
func TestLinkBedServes(t *testing.T) {
	s, srv := testServer(t, Options{Products: 20})
	c := rawClient()
	index := fetch(t, c, http.MethodGet, srv.URL+"/linkbed/", nil)
	for _, p := range LinkBedPages() {
		r := fetch(t, c, http.MethodGet, srv.URL+p, nil)
		if r.status != http.StatusOK {
			t.Errorf("%s: status %d", p, r.status)
		}
		if p != bedPrefix && !strings.Contains(string(index.body), `href="`+p+`"`) {
			t.Errorf("the index does not link %s", p)
		}
	}
	robots := string(fetch(t, c, http.MethodGet, srv.URL+"/robots.txt", nil).body)
	cases, targets, disallowed := LinkBed(), map[string]bool{}, 0
	for _, bc := range cases {
		key := bedKey(bc.Method, bc.Target)
		if targets[key] {
			t.Errorf("case %s: target %s is another case's", bc.Case, key)
		}
		targets[key] = true
		if bc.Robots {
			disallowed++
			if !strings.Contains(robots, "Disallow: /private/\n") || !strings.HasPrefix(bc.Target, "/private/") {
				t.Errorf("case %s: robots.txt does not disallow %s", bc.Case, bc.Target)
			}
		}
		method := bc.Method
		if method == "" {
			method = http.MethodGet
		}
		if r := fetch(t, c, method, srv.URL+bc.Target, nil); r.status != http.StatusOK {
			t.Errorf("case %s: %s %s: status %d", bc.Case, method, bc.Target, r.status)
		}
	}
	if disallowed < 2 {
		t.Errorf("%d robots-disallowed cases, want at least 2", disallowed)
	}
	for key, n := range s.BedFetched() {
		if n != 1 {
			t.Errorf("%s: fetched %d times, want 1", key, n)
		}
	}
	var rep bedReport
	if err := json.Unmarshal(fetch(t, c, http.MethodGet, srv.URL+"/__demosite/linkbed", nil).body, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Cases) != len(cases) || len(rep.Fetched) != len(targets) || rep.Fetched["POST /linkbed/t/60"] != 1 {
		t.Errorf("/__demosite/linkbed: %d cases, %d targets, POST /linkbed/t/60 %d; want %d, %d, 1",
			len(rep.Cases), len(rep.Fetched), rep.Fetched["POST /linkbed/t/60"], len(cases), len(targets))
	}
	s.Reset()
	if n := s.BedFetched()["/linkbed/t/01"]; n != 0 {
		t.Errorf("after Reset, /linkbed/t/01 counts %d", n)
	}
}

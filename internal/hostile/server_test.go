package hostile

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestHostileCasesAreWellFormed: names and paths are unique, no path serves
// another's, every case is served or leads somewhere, and a known defect
// says what it is.
func TestHostileCasesAreWellFormed(t *testing.T) {
	names := map[string]bool{}
	for _, c := range Cases {
		if names[c.Name] {
			t.Errorf("%s: name used twice", c.Name)
		}
		names[c.Name] = true
		if c.Does == "" {
			t.Errorf("%s: no Does", c.Name)
		}
		switch {
		case c.Via == Link:
			if c.target == "" || c.serve != nil || c.Path != "" {
				t.Errorf("%s: a Link case has a target and no path", c.Name)
			}
		case c.serve == nil || !strings.HasPrefix(c.Path, "/"):
			t.Errorf("%s: no handler or no path", c.Name)
		case c.Path == "/ok" || c.Path == "/robots.txt" || strings.HasPrefix(c.Path, "/robots/"):
			t.Errorf("%s: path %s is the server's own", c.Name, c.Path)
		}
		for _, d := range Cases {
			if c.Name != d.Name && c.Path != "" && (d.Path == c.Path || strings.HasPrefix(d.Path, c.Path+"/")) {
				t.Errorf("%s: path %s also serves %s", c.Name, c.Path, d.Name)
			}
		}
		if c.Want.Retried && c.Want.Error != "" && !strings.Contains("refused reset timeout tls protocol truncated network", c.Want.Error) {
			t.Errorf("%s: %s is not a retried code (docs/cfetch.md)", c.Name, c.Want.Error)
		}
	}
}

// TestHostileServerLifecycle: each host answers its own robots.txt, the main one serves
// every path, and Close ends handlers that would go on forever.
func TestHostileServerLifecycle(t *testing.T) {
	s := New()
	defer s.Close()
	get := func(u string) (int, string) {
		t.Helper()
		resp, err := http.Get(u)
		if err != nil {
			t.Fatalf("GET %s: %v", u, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, _ := get(s.HostURL("robots-500") + "/robots.txt"); code != 500 {
		t.Errorf("robots-500's robots.txt: %d", code)
	}
	if code, _ := get(s.URL + "/robots.txt"); code != 404 {
		t.Errorf("the main robots.txt: %d", code)
	}
	if code, body := get(s.URL + "/control"); code != 200 || !strings.Contains(body, "<title>control</title>") {
		t.Errorf("control on the main host: %d %q", code, body)
	}
	if code, body := get(s.URL + "/public-links"); code != 200 || !strings.Contains(body, "169.254.169.254") {
		t.Errorf("public-links: %d %q", code, body)
	}
	if n := s.Hits("/control"); n != 1 {
		t.Errorf("Hits(/control) = %d", n)
	}

	// Handlers that never end by themselves.
	client := &http.Client{Timeout: 10 * time.Second}
	started := make(chan struct{}, 3)
	for _, name := range []string{"slow-body", "endless-chunked", "silent"} {
		c, _ := Lookup(name)
		go func() {
			resp, err := client.Get(s.CaseURL(c))
			started <- struct{}{}
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
	<-started
	<-started // silent never answers: two have begun
	start := time.Now()
	s.Close()
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Close took %v", d)
	}
}

func TestHostileRequest(t *testing.T) {
	s := New()
	defer s.Close()
	for name, want := range map[string]string{
		"control":              `{"attrs":{"case":"control"},"kind":"request","url":"` + s.HostURL("control") + `/control"}`,
		"redirect-to-loopback": `{"attrs":{"case":"redirect-to-loopback"},"kind":"request","proxy":"` + s.URL + `","url":"http://redirect-to-loopback.example/redirect-to-loopback"}`,
		"link-to-metadata":     `{"attrs":{"case":"link-to-metadata"},"depth":1,"kind":"request","referer":"http://public-links.example/","url":"http://169.254.169.254/latest/meta-data/"}`,
	} {
		c, ok := Lookup(name)
		if !ok {
			t.Fatalf("no case %s", name)
		}
		if got := s.Request(c); got != want {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
}

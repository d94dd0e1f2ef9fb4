package cextract

import (
	"context"
	"io"
	"strings"
	"testing"
)

// FuzzShellLine: any line typed into --shell, on an HTML and a JSON page,
// is answered or reported, never a panic; and a test's page, any record
// file, is read or refused with its name.
func FuzzShellLine(f *testing.F) {
	for _, s := range []string{"h1", ".price::text", "//a/@href", "count(//a)", "@url", "@request.attrs.x",
		"re:(\\d+)", "re:(", "jq:.a[]", "jq:{", ".a", ":explain", ":explain h1[[", ":page", ":rules", ":fetch",
		":bogus", "h1[[", "xpath:(", "css:", "@", "  # a comment", ":help"} {
		f.Add(s)
	}
	pages := []string{
		`{"kind":"response","url":"https://shop.example/p/1","status":200,"headers":{"content-type":"text/html"},"body":"<h1>Widget</h1><p class=price>3.50</p><a href='/p/2'>next</a>","request":{"url":"https://shop.example/p/1","attrs":{"x":1}}}`,
		`{"kind":"response","url":"https://shop.example/api","status":200,"headers":{"content-type":"application/json"},"body":"{\"a\":[1,\"b\",{\"c\":null}]}","request":{"url":"https://shop.example/api"}}`,
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.HasPrefix(strings.TrimSpace(line), ":fetch") || strings.HasPrefix(strings.TrimSpace(line), ":rules") {
			return // they read files named by the line
		}
		for _, page := range pages {
			smp, err := readSample("page", strings.NewReader(page))
			if err != nil {
				t.Fatal(err)
			}
			s := &session{ctx: context.Background(), out: io.Discard, errf: func(string, ...any) {}}
			s.page = smp
			if err := s.loadSample(smp); err != nil {
				t.Fatal(err)
			}
			s.line(line)
			s.line(":explain")
		}
		if _, err := readSample("f.ndjson", strings.NewReader(line)); err != nil && !strings.Contains(err.Error(), "f.ndjson") {
			t.Fatalf("error without the file's name: %v", err)
		}
	})
}

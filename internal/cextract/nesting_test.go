package cextract

import (
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/selector"
)

func TestTooDeepPagesKeepTheirText(t *testing.T) {
	tests := map[string]string{
		"divs":       strings.Repeat("<div>x", 2000) + strings.Repeat("</div>", 2000),
		"unclosed":   strings.Repeat("<div><span>x", 1000),
		"formatting": strings.Repeat("<b><i><u>x", 400),
		"tables":     strings.Repeat("<table><tr><td>x", 300),
		"svg":        strings.Repeat("<svg><g>x", 400),
		"self-close": strings.Repeat("<div/>x", 800),
	}
	for name, body := range tests {
		t.Run(name, func(t *testing.T) {
			d := selector.ParseDoc("<title>T</title>"+body+`<p id="end">end</p>`, "")
			if !d.Degraded {
				t.Skip("parsed without the fallback")
			}
			s, _ := selector.Compile("normalize-space(//body)")
			vals, err := s.Select(d)
			if err != nil {
				t.Fatal(err)
			}
			text := strings.ReplaceAll(vals[0].Text, " ", "")
			if want := strings.Count(body, "x"); strings.Count(text, "x") != want || !strings.HasSuffix(text, "end") {
				t.Fatalf("text has %d x (want %d), ends %q", strings.Count(text, "x"), want, text[max(0, len(text)-10):])
			}
			if p, _ := selector.Compile("#end"); p != nil {
				if v, ok, _ := p.First(d, d.Root); !ok || v.Text != "end" {
					t.Fatalf("#end = %q %v", v.Text, ok)
				}
			}
		})
	}
}

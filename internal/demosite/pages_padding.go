package demosite

import (
	"fmt"
	"strings"
	"sync"
)

// padding returns the bytes Options.PadBytes adds to every HTML page:
// about two fifths an inline script holding a JSON state object, a fifth a
// style sheet, the rest blocks of text; no links, no element a rule of
// testdata/rules/demo.yml selects. Built once.
func (s *Site) padding() string {
	if s.opts.PadBytes <= 0 {
		return ""
	}
	s.padOnce.Do(func() { s.pad = makePadding(s.opts.PadBytes) })
	return s.pad
}

func makePadding(n int) string {
	var b strings.Builder
	b.Grow(n + 256)
	b.WriteString("<script>window.__STATE__={")
	for i := 0; b.Len() < n*2/5; i++ {
		fmt.Fprintf(&b, `"sku%d":{"id":%d,"name":"Item %d","tags":["new","sale"],"price":%d.99,"stock":%t},`, i, i, i, i%97, i%3 == 0)
	}
	b.WriteString("\"v\":1};</script>\n<style>\n")
	for i := 0; b.Len() < n*3/5; i++ {
		fmt.Fprintf(&b, ".blk-%d{margin:%dpx %dpx;color:#%06x}\n", i, i%24, i%16, (i*2654435761)&0xffffff)
	}
	b.WriteString("</style>\n")
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "<div class=\"blk-%d\"><h4>Notes %d</h4><p>Customers who viewed this also compared sizes, colours and delivery times; block %d.</p></div>\n", i%500, i, i)
	}
	return b.String()
}

// padState is the padding of a Site (see Site.padding).
type padState struct {
	padOnce sync.Once
	pad     string
}

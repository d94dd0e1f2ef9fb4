package cextract

import (
	"testing"

	"github.com/crawlutils/crawlutils/internal/cextract/rules"
)

// FuzzCheckRules: checking any rules file, its structure and its selectors
// together (what --check and -r do), never panics, even on what Parse
// could read of a faulty file; every error names the file, a line and a
// column; a file that compiles gives an engine.
func FuzzCheckRules(f *testing.F) {
	for _, s := range []string{
		"", "items: [\n", "items:\n  - name: p\n    fields: {t: h1}\n",
		"items:\n  - name: p\n    felds: 1\n    fields:\n      t: {css: 'h1[', process: [{date: '%Q'}]}\n      u: {each: li}\n",
		"items:\n  - name: p\n    match: {type: pdf}\n    fields: {t: {jq: '.['}}\n",
		"items:\n  - name: p\n    match: {type: text}\n    fields: {v: {re: 'v(\\d+)'}, w: h1}\n",
		"items:\n  - name: p\n    csv: {delimiter: ';;'}\n    each: li\n    fields: {a: {column: a}}\n",
		"items:\n  - name: p\n    fields:\n      o:\n        each: 'li['\n        fields: {x: {xpath: 'count('}}\n",
		"links:\n  - select: {jq: .next}\n    match: {type: json}\n    restrict_css: ['ul[']\n  - alow: x\n    deny_extensions: []\n",
		"links:\n  - match: {type: json}\n  - select: {fields: {a: b}}\n",
		"sitemaps:\n  - lastmod_after: soon\n    follow: '('\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		x, err := compileRulesFile("f.yml", data)
		if err == nil {
			if x == nil {
				t.Fatal("no error and no engine")
			}
			return
		}
		es, ok := err.(rules.Errors)
		if !ok || len(es) == 0 {
			t.Fatalf("error is %T %v, want rules.Errors", err, err)
		}
		for _, e := range es {
			if e.File != "f.yml" || e.Line < 1 || e.Col < 1 || e.Msg == "" {
				t.Fatalf("error without a position: %#v", e)
			}
		}
	})
}

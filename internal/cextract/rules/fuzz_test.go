package rules

import "testing"

// FuzzRules: any file parses or gives errors that each carry a file name,
// a line and a column; never a panic.
func FuzzRules(f *testing.F) {
	for _, s := range []string{
		example, "", "items: []", "- a", "{", "items:\n  - name: p\n    fields: {t: h1}\n",
		"items:\n  - name: p\n    fields:\n      t: &a {css: h1}\n      u: *a\n      v: {<<: *a, all: true}\n",
		`{"links": [{"allow": ["("], "priority": "x"}]}`, "sitemaps:\n  - lastmod_after: 2024-01-01T00:00:00Z\n",
		"a: &a [*a]\n", "items:\n  - name: p\n    csv: {delimiter: '\\t'}\n", "!!map {items: !!seq []}",
		"items:\n- name: p\n  fields:\n    t:\n      process:\n        - date: ['%Y', '%d']\n        - map: {a: [1]}\n",
		"items:\n- name: 0x1F\n  csv: {headers: [01, '', 01]}\n  fields: {01: h1, 1: {column: 1_0}, ~: h1, ? 0o7 : h1, .inf: h1, True: h1}\n",
		"items:\n- name: p\n  fields: {t: h1}\ntests:\n- name: a\n  page: p.ndjson\n  items: [{count: 1, min: 2, fields: t, values: [{t: x}]}]\n  links: {min: 3, max: 1, urls: [u]}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := Parse("f.yml", data)
		if err == nil {
			return
		}
		es, ok := err.(Errors)
		if !ok || len(es) == 0 {
			t.Fatalf("error is %T %v, want Errors", err, err)
		}
		for _, e := range es {
			if e.File != "f.yml" || e.Line < 1 || e.Col < 1 || e.Msg == "" {
				t.Fatalf("error without a position: %#v", e)
			}
		}
	})
}

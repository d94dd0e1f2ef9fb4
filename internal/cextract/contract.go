package cextract

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/crawlutils/crawlutils/internal/cextract/rules"
	"github.com/crawlutils/crawlutils/internal/cli"
)

// Contracts (--test): the tests: of a rules file, Scrapy's spider
// contracts. Each test names a stored page — a response record file beside
// the rules, or a URL fetched once with cfetch and kept there — and what
// the rules must make of it: how many items and links, which fields, which
// exact values. A failed expectation is one line naming the rules file
// and line, the test and the field, with what was wanted and what came.

// testOptions are the settings of a --test run.
type testOptions struct {
	refetch   bool     // --refetch: fetch the tests' URLs again
	fetchArgs []string // --fetch-arg: cfetch's flags
}

// runTests runs the tests of the rules file name; the error's exit status
// is 1 when a test failed, 2 when the file is not valid or has no tests.
// The report goes to w, one line per test and one per failed expectation.
func runTests(ctx context.Context, tool *cli.Tool, w io.Writer, name string, o testOptions) error {
	data, err := os.ReadFile(name)
	if err != nil {
		return cli.Usagef("rules: %v", err)
	}
	f, perr := rules.Parse(name, data)
	var x *engine
	if perr == nil {
		x, perr = compileRules(f)
	}
	if perr != nil {
		return usageError(tool, perr)
	}
	if len(f.Tests) == 0 {
		return cli.Usagef("%s: no tests: add tests: with a page and the items or links expected (see docs/rules.md, Tests)", name)
	}
	failed := 0
	var b bytes.Buffer
	for _, t := range f.Tests {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !runTest(ctx, tool, &b, name, x, t, o) {
			failed++
		}
	}
	fmt.Fprintf(&b, "%s: %d test(s), %d passed, %d failed\n", name, len(f.Tests), len(f.Tests)-failed, failed)
	if _, err := w.Write(b.Bytes()); err != nil {
		return err
	}
	if failed > 0 {
		tool.Printf("%s: %d of %d test(s) failed", name, failed, len(f.Tests))
		return cli.Exit(cli.ExitFailure)
	}
	return nil
}

// testPage is where test t's page is kept: its page, relative to the rules
// file, or RULES.tests/NAME.ndjson beside it.
func testPage(rulesFile string, t *rules.Test) string {
	dir := filepath.Dir(rulesFile)
	if t.Page.Value != "" {
		if filepath.IsAbs(t.Page.Value) {
			return t.Page.Value
		}
		return filepath.Join(dir, t.Page.Value)
	}
	stem := strings.TrimSuffix(filepath.Base(rulesFile), filepath.Ext(rulesFile))
	return filepath.Join(dir, stem+".tests", slug(t.Name)+".ndjson")
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// slug is a test's name as a file name: "A product page" -> "a-product-page".
func slug(s string) string {
	s = strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(s), "-"), "-")
	if s == "" {
		return "test"
	}
	return s
}

// runTest runs one test, reporting each failed expectation; it reports
// whether the test passed.
func runTest(ctx context.Context, tool *cli.Tool, w *bytes.Buffer, file string, x *engine, t *rules.Test, o testOptions) bool {
	head := fmt.Sprintf("%s:%d: test %q", file, t.Line, t.Name)
	s, err := testSample(ctx, tool, file, t, o)
	if err != nil {
		fmt.Fprintf(w, "FAIL  %s\n      %v\n", head, err)
		return false
	}
	if why := s.unreadable(); why != "" {
		fmt.Fprintf(w, "FAIL  %s (%s)\n      the page is not extracted: %s\n", head, s.name, why)
		return false
	}
	got := s.run(x, nil)
	var fails []string
	failf := func(pos rules.Pos, format string, a ...any) {
		fails = append(fails, fmt.Sprintf("%s:%d:%d: %s", file, pos.Line, pos.Col, fmt.Sprintf(format, a...)))
	}
	for _, e := range t.Items {
		checkItems(e, got.items, failf)
	}
	if e := t.Links; e != nil {
		if want, ok := e.Count.Check(len(got.links)); !ok {
			failf(e.Count.Pos, "links: want %s, got %d", want, len(got.links))
		}
		for _, u := range e.URLs {
			want := resolveAgainst(s.url, u.Value)
			if !contains(got.links, want) {
				failf(u.Pos, "links: want %s among the %d link(s), not there", want, len(got.links))
			}
		}
	}
	if len(fails) == 0 {
		fmt.Fprintf(w, "ok    %s (%s: %d item(s), %d link(s))\n", head, s.name, len(got.items), len(got.links))
		return true
	}
	fmt.Fprintf(w, "FAIL  %s (%s)\n", head, s.name)
	for _, f := range fails {
		fmt.Fprintf(w, "      %s\n", f)
	}
	if m := strings.TrimSpace(got.msgs); m != "" {
		for _, l := range strings.Split(m, "\n") {
			fmt.Fprintf(w, "      %s\n", strings.TrimPrefix(l, "cextract: "))
		}
	}
	return false
}

// testSample loads the page of t, fetching its URL first when the page is
// not kept yet (or with --refetch).
func testSample(ctx context.Context, tool *cli.Tool, file string, t *rules.Test, o testOptions) (*sample, error) {
	path := testPage(file, t)
	_, statErr := os.Stat(path)
	fetch := t.URL.Value != "" && (o.refetch || errors.Is(statErr, os.ErrNotExist))
	if !fetch {
		s, err := loadSample(path)
		if err != nil && errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("page %s: no such file (give url: to fetch it once)", path)
		}
		return s, err
	}
	s, err := fetchOnce(ctx, t.URL.Value, o.fetchArgs, tool.Stderr)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("keeping the page: %v", err)
	}
	if err := os.WriteFile(path, append(bytes.Clone(s.raw), '\n'), 0o644); err != nil {
		return nil, fmt.Errorf("keeping the page: %v", err)
	}
	tool.Printf("%s:%d: test %q: fetched %s into %s", file, t.Line, t.Name, t.URL.Value, path)
	s.name = path
	return s, nil
}

// checkItems checks the items of one expectation.
func checkItems(e *rules.ExpectItems, all []producedItem, failf func(rules.Pos, string, ...any)) {
	what := "items"
	var items []producedItem
	for _, it := range all {
		if e.Type == "" || it.typ == e.Type {
			items = append(items, it)
		}
	}
	if e.Type != "" {
		what = fmt.Sprintf("items of type %q", e.Type)
	}
	if want, ok := e.Count.Check(len(items)); !ok {
		failf(e.Count.Pos, "%s: want %s, got %d", what, want, len(items))
	}
	for _, fld := range e.Fields {
		for i, it := range items {
			if _, ok := it.data[fld.Value]; !ok {
				failf(fld.Pos, "item %d (%s), field %q: missing; the item: %s", i+1, it.typ, fld.Value, shortText(string(it.raw), 200))
				break
			}
		}
	}
	for i, vs := range e.Values {
		if i >= len(items) {
			failf(vs.Pos, "item %d: want values, got %d item(s)", i+1, len(items))
			break
		}
		it := items[i]
		for _, v := range vs.Fields {
			got, ok := it.data[v.Name]
			switch {
			case !ok:
				failf(v.Pos, "item %d (%s), field %q: want %s, got nothing (missing)", i+1, it.typ, v.Name, v.JSON)
			case !sameJSON(v.JSON, got):
				failf(v.Pos, "item %d (%s), field %q: want %s, got %s", i+1, it.typ, v.Name, v.JSON, got)
			}
		}
	}
}

// sameJSON reports whether a and b are the same JSON value; numbers equal
// by value (1 and 1.0).
func sameJSON(a, b json.RawMessage) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return bytes.Equal(a, b)
	}
	ja, _ := json.Marshal(va)
	jb, _ := json.Marshal(vb)
	return bytes.Equal(ja, jb)
}

// resolveAgainst resolves ref, a URL or a path such as /p/2, against the
// page's URL, so that a test's links hold wherever the page was fetched.
func resolveAgainst(page, ref string) string {
	base, err := url.Parse(page)
	if err != nil {
		return ref
	}
	u, err := base.Parse(ref)
	if err != nil {
		return ref
	}
	return u.String()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

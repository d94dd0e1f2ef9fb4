package cfetch

import (
	"bytes"
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/record"
)

// errorCodes returns the error codes cfetch can write: the string
// constants named Err… in the package's source files (errors.go has the
// list; a code declared in another file counts too), read from the source so
// that a new code needs no second list here.
func errorCodes(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var codes []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, id := range vs.Names {
					if !strings.HasPrefix(id.Name, "Err") || i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					code, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					codes = append(codes, code)
				}
			}
		}
	}
	if len(codes) < 10 {
		t.Fatalf("found %d error codes (%v) in the package's const Err… = \"…\" declarations; want the whole list", len(codes), codes)
	}
	return codes
}

// codeWord is one code in a list in prose.
var codeWord = regexp.MustCompile("[a-z_]+")

// sameCodes reports the codes missing from got and the ones in got that
// are not codes.
func sameCodes(t *testing.T, where string, codes, got []string) {
	t.Helper()
	for _, c := range codes {
		if !slices.Contains(got, c) {
			t.Errorf("%s lacks the error code %s", where, c)
		}
	}
	for _, g := range got {
		if !slices.Contains(codes, g) {
			t.Errorf("%s lists %s, which is not an error code of cfetch (the Err… constants)", where, g)
		}
	}
}

// TestDocsListEveryErrorCode: every error code cfetch can write in a
// response is in the list of codes of docs/records.md, in the table of
// docs/cfetch.md and in cfetch --help, and none of them lists a code that
// is not; the one it writes in an ack is in docs/records.md and --help.
func TestDocsListEveryErrorCode(t *testing.T) {
	t.Parallel()
	codes := errorCodes(t)

	t.Run("records.md", func(t *testing.T) {
		doc, err := os.ReadFile("../../docs/records.md")
		if err != nil {
			t.Fatal(err)
		}
		// "`error` codes: `dns`, `refused`, …, `robots` (robots.txt disallows it), …, `network`."
		// up to a blank line.
		_, list, ok := strings.Cut(string(doc), "\n`error` codes: ")
		if !ok {
			t.Fatal("docs/records.md has no paragraph starting \"`error` codes: \"")
		}
		list, _, _ = strings.Cut(list, "\n\n")
		list = regexp.MustCompile(`\([^)]*\)`).ReplaceAllString(list, "") // the glosses: "(robots.txt disallows it)"
		var got []string
		for _, m := range regexp.MustCompile("`([a-z_]+)`").FindAllStringSubmatch(list, -1) {
			got = append(got, m[1])
		}
		sameCodes(t, "docs/records.md's list of `error` codes", codes, got)
	})

	t.Run("cfetch.md", func(t *testing.T) {
		doc, err := os.ReadFile("../../docs/cfetch.md")
		if err != nil {
			t.Fatal(err)
		}
		_, table, ok := strings.Cut(string(doc), "\n### Error codes\n")
		if !ok {
			t.Fatal("docs/cfetch.md has no section ### Error codes")
		}
		table, _, _ = strings.Cut(table, "\n#")
		var got []string
		lines := strings.Split(table, "\n")
		row := regexp.MustCompile("^\\| `([a-z_]+)` \\|")
		for i, line := range lines {
			m := row.FindStringSubmatch(line)
			if m == nil || i+1 < len(lines) && strings.HasPrefix(lines[i+1], "|---") {
				continue // not a row, or the header
			}
			got = append(got, m[1])
		}
		sameCodes(t, "docs/cfetch.md's table of error codes", codes, got)
	})

	t.Run("help", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		if code := execute(context.Background(), []string{"--help"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
			t.Fatalf("cfetch --help: exit %d\n%s", code, stderr.String())
		}
		// The list is the parenthesized, comma-separated one that has "dns":
		// a failed fetch is a response with "error" set (dns, refused, …).
		var got []string
		for _, m := range regexp.MustCompile(`\(([a-z_]+(?:,\s+[a-z_]+)+)\)`).FindAllStringSubmatch(stdout.String(), -1) {
			if words := codeWord.FindAllString(m[1], -1); slices.Contains(words, ErrDNS) {
				got = words
			}
		}
		if got == nil {
			t.Fatalf("cfetch --help has no list of error codes, \"(dns, refused, …)\":\n%s", stdout.String())
		}
		sameCodes(t, "cfetch --help's list of error codes", codes, got)
	})

	// cfetch answers a leased line it cannot read with an ack whose error
	// is record.ErrInvalidRecord: the ack's table and --help say so.
	t.Run("ack", func(t *testing.T) {
		doc, err := os.ReadFile("../../docs/records.md")
		if err != nil {
			t.Fatal(err)
		}
		_, ack, _ := strings.Cut(string(doc), "\n## ack\n")
		ack, _, _ = strings.Cut(ack, "\n## ")
		if !strings.Contains(ack, "`"+record.ErrInvalidRecord+"`") {
			t.Errorf("docs/records.md, ## ack, lacks the error code `%s`", record.ErrInvalidRecord)
		}
		var stdout, stderr bytes.Buffer
		if code := execute(context.Background(), []string{"--help"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
			t.Fatalf("cfetch --help: exit %d\n%s", code, stderr.String())
		}
		if want := `"error":"` + record.ErrInvalidRecord + `"`; !strings.Contains(stdout.String(), want) {
			t.Errorf("cfetch --help does not say a leased line it cannot read is answered with %s", want)
		}
	})
}

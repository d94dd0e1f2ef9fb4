package cextract

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShellReadsLinesAsEveryInput: piped, the session's lines are read by
// the rule every input follows (ndjson's): a UTF-8 byte order mark at the
// very start is skipped, as a selector file saved by a Windows editor has
// it, and CRLF ends a line; a BOM before a later line is part of it. The
// mark used to stay on the first selector, "\ufeffh1", which selected
// nothing, silently (exit 0). A line over the cap is reported with its
// number and the session goes on, as a bad line anywhere else.
func TestShellReadsLinesAsEveryInput(t *testing.T) {
	page := filepath.Join(t.TempDir(), "page.ndjson")
	rec := `{"kind":"response","url":"https://shop.example/p/1","status":200,"headers":{"content-type":"text/html"},"body":"<h1>Widget</h1><p>3.50</p>","request":{"url":"https://shop.example/p/1"}}`
	if err := os.WriteFile(page, []byte(rec+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const bom = "\ufeff"
	long := strings.Repeat("x", maxShellLine+1)
	for _, tc := range []struct {
		name, in  string
		out, errs string // stdout; stderr's lines joined by |
		code      int
	}{
		{"plain", "h1\np\n", "\"Widget\"\n\"3.50\"\n", "", 0},
		{"crlf", "h1\r\np\r\n", "\"Widget\"\n\"3.50\"\n", "", 0},
		{"a BOM", bom + "h1\np\n", "\"Widget\"\n\"3.50\"\n", "", 0},
		{"a BOM and CRLF", bom + "h1\r\np\r\n", "\"Widget\"\n\"3.50\"\n", "", 0},
		{"a BOM and no final newline", bom + "h1", "\"Widget\"\n", "", 0},
		{"only a BOM", bom, "", "", 0},
		{"a BOM before a comment", bom + "# selectors\r\nh1\r\n", "\"Widget\"\n", "", 0},
		{"a BOM on a later line stays", "h1\n" + bom + "p\n", "\"Widget\"\n(nothing: :explain says why)\n", "", 0},
		{"a line too long is reported, the next answered", long + "\nh1\n", "\"Widget\"\n", "cextract: <stdin>:1: line too long (over 1048576 bytes)", 3},
	} {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			out, errs, code := run(t, tc.in, "--shell", page)
			if out != tc.out || code != tc.code || !strings.HasPrefix(errs, tc.errs) || tc.errs == "" && errs != "" {
				t.Errorf("stdout %q, stderr %q, exit %d; want %q, %q…, exit %d", out, errs, code, tc.out, tc.errs, tc.code)
			}
		})
	}
}

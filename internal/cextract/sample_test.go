package cextract

import (
	"errors"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadSample: the page of --test and --shell is the first response
// record of its file, read by the rule every input follows (ndjson's): a
// UTF-8 byte order mark at the very start is skipped, as a file saved by a
// Windows editor has it; anywhere else it is part of its line. The mark
// used to stay on the first line, refused as "invalid character 'ï'
// looking for beginning of value".
func TestReadSample(t *testing.T) {
	const (
		bom  = "\ufeff"
		resp = `{"kind":"response","url":"https://shop.example/p/1","status":200,"body":"<h1>W</h1>"}`
		item = `{"kind":"item","data":{"a":1}}`
	)
	for _, tc := range []struct {
		name, in string
		want     string // the sample's URL, or the error
	}{
		{"plain", resp + "\n", "https://shop.example/p/1"},
		{"crlf", resp + "\r\n", "https://shop.example/p/1"},
		{"no final newline", resp, "https://shop.example/p/1"},
		{"a BOM", bom + resp + "\n", "https://shop.example/p/1"},
		{"a BOM and CRLF", bom + resp + "\r\n", "https://shop.example/p/1"},
		{"a BOM and no final newline", bom + resp, "https://shop.example/p/1"},
		{"a BOM before another record", bom + item + "\r\n" + resp + "\r\n", "https://shop.example/p/1"},
		{"a BOM before an empty line", bom + "\r\n" + resp + "\r\n", "https://shop.example/p/1"},
		{"blank lines and spaces", "\n  \n " + resp + " \n", "https://shop.example/p/1"},
		{"only a BOM", bom, `page.ndjson: no response record`},
		{"empty", "", `page.ndjson: no response record`},
		{"no response", item + "\n", `page.ndjson: no response record`},
		{"only the first BOM is skipped", bom + bom + resp + "\n", `page.ndjson:1: invalid record: invalid character 'ï'`},
		{"a BOM on a later line stays", "\n" + bom + resp + "\n", `page.ndjson:2: invalid record: invalid character 'ï'`},
		{"a BOM's first bytes only stay", "\xef\xbb" + resp + "\n", `page.ndjson:1: invalid record: invalid character 'ï'`},
		{"not JSON", "<html>\n", `page.ndjson:1: invalid record: invalid character '<'`},
	} {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			s, err := readSample("page.ndjson", strings.NewReader(tc.in))
			var got string
			if err != nil {
				got = err.Error()
			} else {
				got = s.url
				if s.name != "page.ndjson" || strings.Contains(string(s.raw), bom) || strings.TrimSpace(string(s.raw)) != string(s.raw) {
					t.Errorf("sample %q: %q", s.name, s.raw)
				}
			}
			if err != nil && !strings.HasPrefix(got, tc.want) || err == nil && got != tc.want {
				t.Errorf("%q: %s, want %s", tc.in, got, tc.want)
			}
		})
	}
	// A read error names the file, not the reader's "<stdin>".
	if _, err := readSample("page.ndjson", iotest.ErrReader(errors.New("boom"))); err == nil || err.Error() != "page.ndjson: boom" {
		t.Errorf("read error: %v, want page.ndjson: boom", err)
	}
}

package ndjson

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReaderSkipsLeadingBOM: a UTF-8 byte order mark at the very start of
// an input is skipped, as jq skips it; it used to stay on the first line,
// which every tool then refused as "not a JSON object or a URL: {…}" (the
// mark invisible before the brace). Anywhere else it is part of its line.
func TestReaderSkipsLeadingBOM(t *testing.T) {
	const bom = "\ufeff"
	tests := []struct {
		name, in string
		want     []string
		// unterminated is the last line's Unterminated.
		unterminated bool
	}{
		{"lf", bom + "{\"a\":1}\n{\"a\":2}\n", []string{`{"a":1}`, `{"a":2}`}, false},
		{"crlf", bom + "{\"a\":1}\r\n{\"a\":2}\r\n", []string{`{"a":1}`, `{"a":2}`}, false},
		{"a URL list", bom + "http://a.test/\nhttp://b.test/\n", []string{"http://a.test/", "http://b.test/"}, false},
		{"no final newline", bom + `{"a":1}`, []string{`{"a":1}`}, true},
		{"only a BOM: an empty input", bom, nil, false},
		{"a BOM and an empty line", bom + "\n", []string{""}, false},
		{"a BOM and CRLF", bom + "\r\n", []string{""}, false},
		{"only the first BOM is skipped", bom + bom + "{}\n", []string{bom + "{}"}, false},
		{"a BOM on a later line stays", "{}\n" + bom + "{}\n", []string{"{}", bom + "{}"}, false},
		{"a BOM inside the first line stays", "{\"a\":\"" + bom + "\"}\n", []string{`{"a":"` + bom + `"}`}, false},
		{"a BOM's first bytes only stay", "\xef\xbb{}\n", []string{"\xef\xbb{}"}, false},
		{"no BOM", "{}\n", []string{"{}"}, false},
	}
	for _, tt := range tests {
		t.Run(strings.ReplaceAll(tt.name, " ", "_"), func(t *testing.T) {
			lines, errs := readAll(t, NewReader(nil, strings.NewReader(tt.in)))
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			var got []string
			for i, l := range lines {
				got = append(got, string(l.Bytes))
				if l.Num != i+1 {
					t.Errorf("line %d numbered %d", i+1, l.Num)
				}
			}
			if len(got) != len(tt.want) || strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Fatalf("got %q want %q", got, tt.want)
			}
			if n := len(lines); n > 0 && lines[n-1].Unterminated != tt.unterminated {
				t.Errorf("last line Unterminated %v, want %v", lines[n-1].Unterminated, tt.unterminated)
			}
		})
	}
}

// TestReaderSkipsBOMOfEachInput: each file (and stdin) is an input of its
// own: the BOM at the start of each is skipped, whatever came before.
func TestReaderSkipsBOMOfEachInput(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	os.WriteFile(a, []byte("\ufeffa1\r\na2\r\n"), 0o644)
	os.WriteFile(b, []byte("\ufeffb1"), 0o644)
	lines, errs := readAll(t, NewReader([]string{a, b, "-"}, strings.NewReader("\ufeffs1\n")))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var pos []string
	for _, l := range lines {
		pos = append(pos, l.Pos()+"="+string(l.Bytes))
	}
	if got, want := strings.Join(pos, " "), a+":1=a1 "+a+":2=a2 "+b+":1=b1 <stdin>:1=s1"; got != want {
		t.Fatalf("got %v want %v", got, want)
	}
}

// TestReaderBOMDoesNotCountToMaxLine: the BOM is not part of the first
// line, so a line of MaxLine bytes after it fits, and one byte more does
// not.
func TestReaderBOMDoesNotCountToMaxLine(t *testing.T) {
	for _, tt := range []struct {
		n       int
		tooLong bool
	}{{10, false}, {11, true}} {
		r := NewReader(nil, strings.NewReader("\ufeff"+strings.Repeat("x", tt.n)+"\r\nnext\n"))
		r.MaxLine = 10
		lines, errs := readAll(t, r)
		var le *LineError
		if tt.tooLong {
			if len(errs) != 1 || !errors.As(errs[0], &le) || le.Line.Num != 1 || len(lines) != 1 || lines[0].Num != 2 {
				t.Errorf("%d bytes: errs %v, lines %+v; want line 1 too long", tt.n, errs, lines)
			}
			continue
		}
		if len(errs) != 0 || len(lines) != 2 || len(lines[0].Bytes) != tt.n {
			t.Errorf("%d bytes: errs %v, lines %+v", tt.n, errs, lines)
		}
	}
}

package ndjson

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// FuzzReaderComments: a Reader of a list written by hand (Comments) gives
// the lines a Reader of records gives, with the same numbers and errors,
// less exactly those IsComment calls blank or "#" comments; a line it gives
// is never one; and an input of white space alone gives no line (an error for one
// over MaxLine).
func FuzzReaderComments(f *testing.F) {
	for _, s := range []string{
		BOM + "# seeds\nhttp://a.test/\n\n   \n  # later\nhttp://b.test/ # not a comment\n#\n",
		"\r\n\r\n", "#\r\n#x", "\t#\n\v\f\n", " \u00a0\n\u2003#x\n", BOM + "\n", BOM + BOM + "#\n",
		"a\n" + BOM + "#\n", "http://a.test/\n#" + string(make([]byte, 40)) + "\n", "\x85\n", "a\rb\n# c\r",
	} {
		f.Add([]byte(s), uint8(16))
	}
	f.Fuzz(func(t *testing.T, in []byte, max uint8) {
		read := func(comments bool) []string {
			r := NewReader(nil, bytes.NewReader(in))
			r.MaxLine = int(max) + 1
			r.Comments = comments
			var out []string
			for i := 0; ; i++ {
				if i > len(in)+1 {
					t.Fatal("no end")
				}
				l, err := r.Next()
				if err == io.EOF {
					return out
				}
				var le *LineError
				switch {
				case errors.As(err, &le):
					out = append(out, fmt.Sprintf("%d error %v", le.Line.Num, le.Err))
				case err != nil:
					t.Fatal(err)
				case comments && IsComment(l.Bytes):
					t.Fatalf("line %d %q: a comment given", l.Num, l.Bytes)
				default:
					out = append(out, fmt.Sprintf("%d %q %v", l.Num, l.Bytes, l.Unterminated))
				}
			}
		}
		all, entries := read(false), read(true)
		r := NewReader(nil, bytes.NewReader(in))
		r.MaxLine = int(max) + 1
		var want []string
		for i := 0; ; i++ {
			l, err := r.Next()
			if err == io.EOF {
				break
			}
			if err == nil && IsComment(l.Bytes) {
				continue
			}
			want = append(want, all[i])
		}
		if fmt.Sprint(entries) != fmt.Sprint(want) {
			t.Fatalf("with Comments: %q\nwant: %q", entries, want)
		}
		if len(bytes.TrimLeft(TrimBOM(in), " \t\r\n\v\f")) == 0 {
			for _, e := range entries {
				if !strings.Contains(e, " error ") { // a line over MaxLine is one still
					t.Fatalf("blank input gave %q", entries)
				}
			}
		}
	})
}

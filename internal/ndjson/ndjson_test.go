package ndjson

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readAll(t *testing.T, r *Reader) (lines []Line, errs []error) {
	t.Helper()
	for {
		l, err := r.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		lines = append(lines, l)
	}
}

func TestReaderLines(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"simple", "a\nb\n", []string{"a", "b"}},
		{"no final newline", "a\nb", []string{"a", "b"}},
		{"crlf", "a\r\nb\r\n", []string{"a", "b"}},
		{"empty lines kept", "a\n\nb\n", []string{"a", "", "b"}},
		{"empty input", "", nil},
		{"only newline", "\n", []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines, errs := readAll(t, NewReader(nil, strings.NewReader(tt.in)))
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			var got []string
			for i, l := range lines {
				got = append(got, string(l.Bytes))
				if l.Num != i+1 || l.Source != "<stdin>" {
					t.Errorf("line %d has position %s", i+1, l.Pos())
				}
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
				t.Fatalf("got %q want %q", got, tt.want)
			}
		})
	}
}

func TestReaderTooLongLineIsSkippedNotFatal(t *testing.T) {
	in := "first\n" + strings.Repeat("x", 1000) + "\nthird\n"
	r := NewReader(nil, strings.NewReader(in))
	r.MaxLine = 100
	lines, errs := readAll(t, r)
	if len(lines) != 2 || string(lines[1].Bytes) != "third" || lines[1].Num != 3 {
		t.Fatalf("lines = %+v", lines)
	}
	var le *LineError
	if len(errs) != 1 || !errors.As(errs[0], &le) || le.Line.Num != 2 || !strings.Contains(le.Error(), "<stdin>:2: line too long") {
		t.Fatalf("errs = %v", errs)
	}
}

func TestReaderTenMiBLine(t *testing.T) {
	big := `{"kind":"item","data":{"x":"` + strings.Repeat("a", 10<<20) + `"}}`
	lines, errs := readAll(t, NewReader(nil, strings.NewReader(big+"\n{}\n")))
	if len(errs) != 0 || len(lines) != 2 || len(lines[0].Bytes) != len(big) {
		t.Fatalf("errs %v, %d lines", errs, len(lines))
	}
}

func TestReaderFiles(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.jsonl")
	os.WriteFile(a, []byte("a1\na2\n"), 0o644)
	r := NewReader([]string{a, filepath.Join(dir, "missing"), "-"}, strings.NewReader("s1\n"))
	lines, errs := readAll(t, r)
	var pos []string
	for _, l := range lines {
		pos = append(pos, l.Pos()+"="+string(l.Bytes))
	}
	want := a + ":1=a1 " + a + ":2=a2 <stdin>:1=s1"
	if strings.Join(pos, " ") != want {
		t.Fatalf("got %v want %v", pos, want)
	}
	var oe *OpenError
	if len(errs) != 1 || !errors.As(errs[0], &oe) {
		t.Fatalf("errs = %v", errs)
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	f.n++
	return 0, errors.New("disk full")
}

func TestWriter(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	w.WriteLine([]byte(`{"a":1}`))
	w.WriteLine([]byte("{\"b\":2}\n"))
	if out.Len() != 0 {
		t.Fatal("wrote before Flush")
	}
	big := bytes.Repeat([]byte("x"), bufSize+10)
	if err := w.WriteLine(big); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "{\"a\":1}\n{\"b\":2}\n"+string(big)+"\n" {
		t.Fatalf("got %d bytes: %.40q", len(got), got)
	}

	fw := &failWriter{}
	w = NewWriter(fw)
	w.WriteLine([]byte("{}"))
	if err := w.Flush(); err == nil || w.WriteLine([]byte("{}")) == nil || w.Flush() == nil {
		t.Fatal("write error not kept")
	}
	if fw.n != 1 {
		t.Fatalf("kept writing after an error: %d writes", fw.n)
	}
}

// FuzzReader: the lines read, joined with newlines, give back the input less
// its line endings and a leading byte order mark, whatever the bytes.
func FuzzReader(f *testing.F) {
	for _, s := range []string{"a\nb", "\r\n\r\n", "x\ry\n", "", "\n\n\n", "\ufeffa\r\nb", "\ufeff", "\ufeff\ufeff\n"} {
		f.Add([]byte(s), uint8(4))
	}
	f.Fuzz(func(t *testing.T, in []byte, max uint8) {
		r := NewReader(nil, bytes.NewReader(in))
		r.MaxLine = int(max) + 1
		var got [][]byte
		n := 0
		for {
			l, err := r.Next()
			if err == io.EOF {
				break
			}
			n++
			var le *LineError
			if err != nil && !errors.As(err, &le) {
				t.Fatal(err)
			}
			if err != nil {
				if le.Line.Num != n {
					t.Fatalf("error on line %d, expected %d", le.Line.Num, n)
				}
				continue
			}
			if len(l.Bytes) > r.MaxLine {
				t.Fatalf("line of %d bytes passed MaxLine %d", len(l.Bytes), r.MaxLine)
			}
			got = append(got, l.Bytes)
		}
		// The lines that fit, as splitting the input by hand gives them.
		var want [][]byte
		in = bytes.TrimPrefix(in, []byte("\ufeff"))
		parts := bytes.Split(in, []byte("\n"))
		if len(in) == 0 || in[len(in)-1] == '\n' {
			parts = parts[:len(parts)-1]
		}
		for _, p := range parts {
			p = bytes.TrimSuffix(p, []byte("\r"))
			if len(p) <= r.MaxLine {
				want = append(want, p)
			}
		}
		if n != len(parts) {
			t.Fatalf("read %d lines, want %d", n, len(parts))
		}
		if len(got) != len(want) {
			t.Fatalf("got %d good lines, want %d", len(got), len(want))
		}
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("line %d = %q, want %q", i+1, got[i], want[i])
			}
		}
	})
}

package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// readChunks reads r whole with buffers of the given sizes, in turn.
func readChunks(r io.Reader, sizes []int) ([]byte, error) {
	var out []byte
	for i := 0; ; i++ {
		buf := make([]byte, sizes[i%len(sizes)])
		n, err := r.Read(buf)
		out = append(out, buf[:n]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if n == 0 && len(buf) > 0 {
			return out, errors.New("Read returned 0, nil")
		}
	}
}

func TestStringReader(t *testing.T) {
	long := strings.Repeat("<url><loc>https://a.example/é</loc></url>\\n", 300)
	for _, c := range []struct{ lit, want string }{
		{`""`, ""},
		{`"abc"`, "abc"},
		{`"a\"b\\c\/d\b\f\n\r\t"`, "a\"b\\c/d\b\f\n\r\t"},
		{`"\u00e9\u20AC"`, "é€"},
		{`"\ud83d\ude00"`, "😀"},
		{`"\ud83d"`, "\uFFFD"},                       // lone high surrogate
		{`"\ude00x"`, "\uFFFDx"},                     // lone low surrogate
		{`"\ud83d\u0041"`, "\uFFFDA"},                // a surrogate and not its pair
		{`"\ud800\ud800\udc00"`, "\uFFFD\U00010000"}, // the second makes the pair
		{"\"a\xffb\"", "a\uFFFDb"},                   // invalid UTF-8
		{"\"\xe2\x82\"", "\uFFFD\uFFFD"},             // a truncated rune
		{"\"\xe2\x82\\n\"", "\uFFFD\uFFFD\n"},        // truncated before an escape
		{"\"é€😀\"", "é€😀"},                           // runes split by small buffers
		{`"` + long + `"`, strings.ReplaceAll(long, `\n`, "\n")},
	} {
		want, ok := Unquote([]byte(c.lit))
		if !ok || want != c.want {
			t.Fatalf("bad case %s: Unquote gives %q, %v", c.lit, want, ok)
		}
		for _, sizes := range [][]int{{1}, {2}, {3}, {4096}, {1, 5, 2, 7}} {
			got, err := readChunks(NewStringReader([]byte(c.lit)), sizes)
			if err != nil || string(got) != c.want {
				t.Errorf("%s read by %v: %q, %v; want %q", c.lit, sizes, got, err, c.want)
			}
		}
		if err := iotest.TestReader(NewStringReader([]byte(c.lit)), []byte(c.want)); err != nil {
			t.Errorf("%s: %v", c.lit, err)
		}
	}
}

func TestStringReaderBadLiterals(t *testing.T) {
	for _, lit := range []string{``, `"`, `abc`, `"abc`, `"a\x"`, `"a\u12G4"`, `"a\`} {
		if _, ok := Unquote([]byte(lit)); ok {
			t.Fatalf("bad case %s: Unquote takes it", lit)
		}
		_, err := io.ReadAll(NewStringReader([]byte(lit)))
		if !errors.Is(err, ErrBadString) {
			t.Errorf("%s: %v, want ErrBadString", lit, err)
		}
	}
}

// A StringReader does not copy the literal: reading a large one allocates
// nothing per byte.
func TestStringReaderDoesNotCopy(t *testing.T) {
	lit := AppendString(nil, strings.Repeat("<url><loc>https://a.example/é</loc></url>\n", 1<<14)) // 700 KB
	buf := make([]byte, 4096)
	allocs := testing.AllocsPerRun(5, func() {
		r := NewStringReader(lit)
		for {
			if _, err := r.Read(buf); err != nil {
				break
			}
		}
	})
	if allocs > 1 {
		t.Errorf("%v allocations to read a %d-byte literal", allocs, len(lit))
	}
}

// FuzzStringReader: a StringReader reads what encoding/json decodes from a
// string literal, whatever the sizes of the reads.
func FuzzStringReader(f *testing.F) {
	for _, s := range []string{`""`, `"abc"`, `"a\"b\\c\/d\b\f\n\r\t"`, `"\u00e9\ud83d\ude00"`, `"\ud83d\u0041"`,
		`"\ud800\ud800\udc00"`, "\"a\xffb\xe2\x82\"", "\"é€😀\\n\"", ` "x" `, `null`, `"\uDFFF\uD800"`} {
		f.Add([]byte(s), uint8(1))
		f.Add([]byte(s), uint8(7))
	}
	f.Fuzz(func(t *testing.T, lit []byte, size uint8) {
		var want string
		if json.Unmarshal(lit, &want) != nil {
			return
		}
		lit = bytes.Trim(lit, " \t\r\n")
		if lit[0] != '"' {
			return // null
		}
		sizes := []int{1 + int(size%16), 1, 2 + int(size>>4)}
		got, err := readChunks(NewStringReader(lit), sizes)
		if err != nil || string(got) != want {
			t.Fatalf("%q read by %v: %q, %v; encoding/json %q", lit, sizes, got, err, want)
		}
		if got, err := io.ReadAll(iotest.OneByteReader(NewStringReader(lit))); err != nil || string(got) != want {
			t.Fatalf("%q read a byte at a time: %q, %v; encoding/json %q", lit, got, err, want)
		}
	})
}

package ndjson

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
	"testing"
)

// Lines from longLine bytes on are read into one buffer: they read as the
// others do, at every length around the bufio buffer's and longLine, too
// long ones included.
func TestReaderLongLines(t *testing.T) {
	defer func(n int) { longLine = n }(longLine)
	longLine = 100 << 10
	var in bytes.Buffer
	sizes := []int{10, 64<<10 - 1, 64 << 10, 64<<10 + 1, 99 << 10, 100 << 10, 100<<10 + 1, 200 << 10, 300 << 10, 0, 250 << 10}
	for i, n := range sizes {
		in.WriteString(strings.Repeat(string(rune('a'+i)), n))
		if i%2 == 0 {
			in.WriteString("\r")
		}
		in.WriteString("\n")
	}
	in.WriteString(strings.Repeat("z", 150<<10)) // unterminated
	const maxLine = 260 << 10
	r := NewReader(nil, bytes.NewReader(in.Bytes()))
	r.MaxLine = maxLine
	lines, errs := readAll(t, r)
	var want []string
	for _, p := range strings.Split(in.String(), "\n") {
		if p = strings.TrimSuffix(p, "\r"); len(p) <= maxLine {
			want = append(want, p)
		}
	}
	if len(lines) != len(want) || len(errs) != 1 {
		t.Fatalf("%d lines, %d errors; want %d lines and the one too long", len(lines), len(errs), len(want))
	}
	var le *LineError
	if !errors.As(errs[0], &le) || le.Line.Num != 9 {
		t.Errorf("error %v, want line 9 too long", errs[0])
	}
	for i, l := range lines {
		if string(l.Bytes) != want[i] {
			t.Errorf("line %d: %d bytes, want %d", l.Num, len(l.Bytes), len(want[i]))
		}
		if l.Unterminated != (i == len(lines)-1) {
			t.Errorf("line %d: Unterminated %v", l.Num, l.Unterminated)
		}
	}
}

// A long line is copied once: only its first longLine bytes are gathered
// in pieces, so that a 50 MB line costs its size, not twice.
func TestReaderLongLineIsCopiedOnce(t *testing.T) {
	big := strings.Repeat("x", 3*longLine/2)
	src := strings.NewReader(big + "\n")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	l, err := NewReader(nil, src).Next()
	runtime.ReadMemStats(&after)
	if err != nil || len(l.Bytes) != len(big) {
		t.Fatalf("%d bytes, %v", len(l.Bytes), err)
	}
	if copies := int(after.TotalAlloc-before.TotalAlloc) - cap(l.Bytes); copies > longLine+1<<20 {
		t.Errorf("%d MB allocated besides the line's buffer, want at most longLine, %d MB", copies>>20, longLine>>20)
	}
}

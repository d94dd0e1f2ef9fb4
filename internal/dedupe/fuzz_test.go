package dedupe

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// FuzzReadSeenFile: ReadSeenFile never panics, and what it reads
// WriteSeenFile writes back as the same fingerprints, normalized.
func FuzzReadSeenFile(f *testing.F) {
	f.Add([]byte(strings.Repeat("ab", 20) + "\n" + strings.Repeat("CD", 20) + "\r\n\n"))
	f.Add([]byte("xyz\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, in []byte) {
		var fps [][20]byte
		if ReadSeenFile(bytes.NewReader(in), func(fp [20]byte) error { fps = append(fps, fp); return nil }) != nil {
			return
		}
		var out bytes.Buffer
		if n, err := WriteSeenFile(&out, slices.Values(fps)); err != nil || n != len(fps) {
			t.Fatalf("WriteSeenFile = %d, %v", n, err)
		}
		var again [][20]byte
		if err := ReadSeenFile(&out, func(fp [20]byte) error { again = append(again, fp); return nil }); err != nil || !slices.Equal(fps, again) {
			t.Fatalf("round trip of %q: %v", in, err)
		}
	})
}

package cfetch

import (
	"bytes"
	"testing"
)

func TestContainsFoldASCII(t *testing.T) {
	for _, c := range []struct {
		b, w string
		want bool
	}{
		{"<meta http-equiv=Refresh>", "refresh", true},
		{"REFRESH", "refresh", true},
		{"rEfReSh", "refresh", true},
		{"refres", "refresh", false},
		{"£ refresh £", "refresh", true},
		{"r\x85fresh", "refresh", false},
		{"", "refresh", false},
		{"x", "", true},
	} {
		if got := containsFoldASCII([]byte(c.b), c.w); got != c.want {
			t.Errorf("containsFoldASCII(%q, %q) = %v", c.b, c.w, got)
		}
	}
}

// FuzzContainsFoldASCII: the same answer as lower-casing the ASCII letters
// byte by byte and searching.
func FuzzContainsFoldASCII(f *testing.F) {
	f.Add([]byte("<META HTTP-EQUIV=REFRESH>"))
	f.Fuzz(func(t *testing.T, b []byte) {
		lower := make([]byte, len(b))
		for i, c := range b {
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			lower[i] = c
		}
		want := bytes.Contains(lower, []byte("refresh"))
		if got := containsFoldASCII(b, "refresh"); got != want {
			t.Errorf("%q: %v, want %v", b, got, want)
		}
	})
}

package ndjson

import (
	"strings"
	"testing"
)

func TestUnterminatedLastLine(t *testing.T) {
	for in, want := range map[string][]bool{
		"a\nb\n":   {false, false},
		"a\nb":     {false, true},
		"a\r\nb\r": {false, true},
		"":         nil,
	} {
		r := NewReader(nil, strings.NewReader(in))
		var got []bool
		for {
			l, err := r.Next()
			if err != nil {
				break
			}
			got = append(got, l.Unterminated)
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %v, want %v", in, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%q line %d: Unterminated %v, want %v", in, i+1, got[i], want[i])
			}
		}
	}
}

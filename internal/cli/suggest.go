package cli

import (
	"strings"

	"github.com/spf13/pflag"
)

// withSuggestion adds to pflag's message about an unknown flag the
// closest flag f knows: "unknown flag: --concurency (did you mean
// --concurrency?)", as the rules files' messages do for their keys. A long
// flag given with one dash (-concurrency) gets its two-dash spelling.
func (f *Flags) withSuggestion(msg string) string {
	var typed string
	if rest, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		typed = rest
	} else if _, word, ok := strings.Cut(msg, "' in -"); ok && strings.HasPrefix(msg, "unknown shorthand flag: ") {
		typed, _, _ = strings.Cut(word, "=")
	}
	if typed == "" {
		return msg
	}
	if best := f.closest(typed); best != "" {
		return msg + " (did you mean --" + best + "?)"
	}
	return msg
}

// closest is the name of the flag of f nearest to typed: within a third of
// its length in edits (at least one, at most three); "" when none is.
func (f *Flags) closest(typed string) string {
	best, bestD := "", min(3, max(1, len(typed)/3))+1
	f.VisitAll(func(fl *pflag.Flag) {
		if fl.Hidden {
			return
		}
		if d := editDistance(typed, fl.Name); d < bestD {
			best, bestD = fl.Name, d
		}
	})
	return best
}

// editDistance is the optimal string alignment distance of a and b, by
// bytes: insertions, deletions, substitutions and transpositions of two
// neighbours (bacth for batch) count one each; long strings are never
// close.
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 99
	}
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

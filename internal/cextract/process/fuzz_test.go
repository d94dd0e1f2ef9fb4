package process

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"
)

// FuzzParseNumber: any text gives either nothing or a valid JSON number,
// and never a panic.
func FuzzParseNumber(f *testing.F) {
	for _, s := range []string{"£51.77", "1,234", "1.234,5", "In stock (22 available)", "-", "−", "1 2", "1\u00a0234", "0000", ".5", "1e5", "x-1", "9'999'999.99"} {
		f.Add(s, byte(0))
		f.Add(s, byte(','))
	}
	f.Fuzz(func(t *testing.T, s string, decimal byte) {
		if decimal != ',' && decimal != '.' {
			decimal = 0
		}
		n, ok := ParseNumber(s, decimal)
		if !ok {
			return
		}
		var x json.Number
		if err := json.Unmarshal([]byte(n), &x); err != nil || x.String() != n {
			t.Fatalf("ParseNumber(%q) = %q, not a JSON number (%v)", s, n, err)
		}
		if _, isInt := toInteger(n); isInt {
			return
		}
	})
}

// FuzzDate: the date processor never panics, and what it gives reads back
// as RFC 3339.
func FuzzDate(f *testing.F) {
	for _, s := range []string{"2024-05-01", "2024-05-01T10:00:00+02:00", "Wed, 01 May 2024 10:00:00 GMT", "May 1, 2024", "01/05/2024", "", "2024-13-45"} {
		f.Add(s, "")
		f.Add(s, "%d/%m/%Y")
	}
	f.Add("12 %", "%d %%")
	f.Add("x", "%")
	f.Fuzz(func(t *testing.T, s, format string) {
		arg := Arg{}
		if format != "" {
			arg = Arg{Kind: ScalarArg, Scalar: Str(format)}
		}
		p, err := New("date", arg)
		if err != nil {
			return
		}
		for _, v := range (Chain{p}).Apply(nil, []Value{Str(s)}, nil) {
			if _, err := time.Parse(time.RFC3339Nano, v.Text); err != nil {
				t.Fatalf("date(%q, %q) = %q: %v", s, format, v.Text, err)
			}
		}
	})
}

// FuzzCheckReplacement: checkReplacement never panics, and when it takes
// a replacement, regexp.Expand drops none of its group references (writes
// nothing for a group the regex does not have); when it refuses one,
// Expand would drop one, or it holds Python's \1 or \g<name>. A reference
// is found by Expand itself: every run of letters, digits and _ in the
// replacement is made a group of a second regex, and Expand must write
// the same with both.
func FuzzCheckReplacement(f *testing.F) {
	for _, c := range [][2]string{
		{`(\d+)-(\d+) cm`, "$2_$1"}, {`(\d+)-(\d+) cm`, "${2}_${1}"}, {`(\d+)-(\d+)`, `\2-\1`},
		{`(?P<a>x)`, `\g<a>`}, {`(?P<a>x)`, `\g<a`}, {`(a)`, "$$1"}, {`(?P<first>a)`, "$first"}, {`(?P<first>a)`, "${first}s"},
		{`(a)`, "$10"}, {`x`, "$0"}, {`x`, "${0}"}, {`(a)`, "${1"}, {`(a)`, "$"}, {`(a)`, "${}"}, {`(a)`, "${a-b}"},
		{`(?P<2_>a)`, "$2_"}, {`(a)`, "$01"}, {`(a)`, "$999999999"}, {`(a)(b)`, "$1$2$3"}, {`(?P<x>a)`, "$1$x$y"},
		{`a`, "price: $ 5"}, {`(a)`, `\\1`}, {`(a)`, `\0`}, {`(\d+) mm`, "$1мм"}, {`(\d+) mm`, "${1}мм"},
	} {
		f.Add(c[0], c[1])
	}
	word := regexp.MustCompile(`[A-Za-z0-9_]+`)
	f.Fuzz(func(t *testing.T, pattern, with string) {
		re, err := regexp.Compile(pattern)
		if err != nil || re.NumSubexp() > 100 {
			return
		}
		err = checkReplacement(re, with)

		// The regex that has every group the replacement could name.
		var b strings.Builder
		groups := 0
		seen := map[string]bool{}
		// Expand takes any letter or digit for part of a name, while a
		// group's name is ASCII: the template with each other letter or
		// digit written as an ASCII word, which a group can be named.
		var rw strings.Builder
		var back []string
		for i := 0; i < len(with); {
			r, n := utf8.DecodeRuneInString(with[i:])
			if r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
				w := fmt.Sprintf("Zu%xZ", r)
				back = append(back, w, string(r))
				rw.WriteString(w)
			} else {
				rw.WriteString(with[i : i+n])
			}
			i += n
		}
		ascii := rw.String()
		for _, w := range word.FindAllString(ascii, 300) {
			// A number as Expand reads one: up to 9 digits, no leading 0.
			if n, aerr := strconv.Atoi(w); aerr == nil && len(w) <= 9 && (w == "0" || w[0] != '0') {
				if n > 100 {
					return // too many groups to make
				}
				for groups < n {
					b.WriteString("()")
					groups++
				}
				continue
			}
			if !seen[w] {
				seen[w] = true
				fmt.Fprintf(&b, "(?P<%s>)", w)
				groups++
			}
		}
		for groups < re.NumSubexp() {
			b.WriteString("()")
			groups++
		}
		all, cerr := regexp.Compile(b.String())
		if cerr != nil {
			return
		}
		expand := func(re *regexp.Regexp, with string) string {
			match := make([]int, 2*(re.NumSubexp()+1))
			for i := range match {
				match[i] = i % 2 // every group is "\x00"
			}
			return string(re.ExpandString(nil, with, "\x00", match))
		}
		got, want := expand(re, with), strings.NewReplacer(back...).Replace(expand(all, ascii))
		if err == nil && got != want {
			t.Fatalf("checkReplacement(%q, %q) took it, but Expand drops a group: %q, not %q", pattern, with, got, want)
		}
		if err != nil && got == want && !regexp.MustCompile(`\\[1-9]|\\g<[^>]*>`).MatchString(with) {
			t.Fatalf("checkReplacement(%q, %q) refused it (%v), but Expand drops no group", pattern, with, err)
		}
	})
}

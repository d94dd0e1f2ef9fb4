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

// rfc822Offsets are the zone names of RFC 822 (section 5.1) and their
// offsets in hours, written out again from the RFC for the fuzz targets.
var rfc822Offsets = map[string]int{
	"UT": 0, "UTC": 0, "GMT": 0,
	"EST": -5, "EDT": -4, "CST": -6, "CDT": -5, "MST": -7, "MDT": -6, "PST": -8, "PDT": -7,
}

// FuzzDateZone: a date written with a zone name is the instant it names,
// or no date: an RFC 822 name has its offset, GMT+h and GMT-h (h up to 23,
// as Go reads them) theirs, and any other name (CEST, BST, EST5EDT, a
// lower-case one) gives no date, never the wall clock read as UTC. So for
// the date processor without a format (RFC 1123, RFC 850 and RFC 822
// dates) and with a strftime format ending in %Z; and with "%s %Z", the
// seconds since the epoch are the instant whatever the name.
func FuzzDateZone(f *testing.F) {
	for _, z := range []string{"GMT", "UTC", "UT", "EST", "EDT", "CST", "CDT", "MST", "MDT", "PST", "PDT",
		"GMT+2", "GMT-3", "GMT+02", "GMT+23", "GMT+24", "GMT+", "GMT+0", "CEST", "BST", "IST", "est", "Z", "ChST", "EST5EDT"} {
		for form := range uint8(6) {
			f.Add(int64(1714557600), z, form)
		}
	}
	f.Add(int64(-62135596800), "EST", uint8(3))
	f.Add(int64(253402300799), "PST", uint8(0))
	type form struct {
		layout string // Go's, for the wall clock; "" for "%s"
		format string // strftime's; "" for the date processor without one
	}
	forms := []form{
		{"Mon, 02 Jan 2006 15:04:05 ", ""},
		{"Mon, 2 Jan 2006 15:04:05 ", ""},
		{"Monday, 02-Jan-06 15:04:05 ", ""},
		{"02.01.2006 15:04:05 ", "%d.%m.%Y %H:%M:%S %Z"},
		{"Mon, 02 Jan 2006 15:04:05 ", "%a, %d %b %Y %H:%M:%S %Z"},
		{"", "%s %Z"},
	}
	f.Fuzz(func(t *testing.T, unix int64, zone string, which uint8) {
		if zone == "" || !('A' <= zone[0] && zone[0] <= 'Z' || 'a' <= zone[0] && zone[0] <= 'z') || strings.ContainsAny(zone, " \t\r\n\v\f") {
			return
		}
		fm := forms[int(which)%len(forms)]
		wall := time.Unix(unix, 0).UTC()
		if wall.Year() < 1 || wall.Year() > 9999 || strings.Contains(fm.layout, "-06 ") && (wall.Year() < 1969 || wall.Year() > 2068) {
			return
		}
		s := wall.Format(fm.layout) + zone
		if fm.layout == "" {
			s = fmt.Sprint(unix) + " " + zone
		}
		arg := Arg{}
		if fm.format != "" {
			arg = scalar(fm.format)
		}
		p, err := New("date", arg)
		if err != nil {
			t.Fatal(err)
		}
		out := Chain{p}.Apply(&Context{}, strs(s), nil)
		var got time.Time
		if len(out) == 1 {
			if got, err = time.Parse(time.RFC3339, out[0].Text); err != nil {
				t.Fatalf("date(%q) on %q = %q: %v", fm.format, s, out[0].Text, err)
			}
		}

		offset, known := rfc822Offsets[zone]
		offset *= 3600
		gmt := false
		if h, err := strconv.Atoi(strings.TrimPrefix(zone, "GMT")); err == nil && len(zone) > 4 && strings.HasPrefix(zone, "GMT") && (zone[3] == '+' || zone[3] == '-') && -23 <= h && h <= 23 {
			offset, gmt = h*3600, true
		}
		if zone == "UT" { // not a name Go reads
			known = false
		}
		switch {
		case len(out) == 0:
			if known || gmt && fm.format == "" {
				t.Fatalf("date(%q) on %q: no date; want one at offset %d", fm.format, s, offset)
			}
		case !known && !gmt:
			t.Fatalf("date(%q) on %q = %q: a date with a zone name of no known offset", fm.format, s, out[0].Text)
		default:
			want := time.Date(wall.Year(), wall.Month(), wall.Day(), wall.Hour(), wall.Minute(), wall.Second(), 0, time.FixedZone("", offset))
			if fm.layout == "" {
				want = time.Unix(unix, 0).In(time.FixedZone("", offset))
			}
			if _, o := got.Zone(); !got.Equal(want) || o != offset {
				t.Fatalf("date(%q) on %q = %q, want %s", fm.format, s, out[0].Text, FormatDate(want))
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

package process

import (
	"net/url"
	"strings"
	"testing"
)

func scalar(s string) Arg { return Arg{Kind: ScalarArg, Scalar: Str(s)} }

func num(s string) Arg { return Arg{Kind: ScalarArg, Scalar: Value{Kind: Number, Text: s}} }

func list(as ...Arg) Arg { return Arg{Kind: ListArg, List: as} }

func mapping(kv ...any) Arg {
	a := Arg{Kind: MapArg}
	for i := 0; i < len(kv); i += 2 {
		a.Keys = append(a.Keys, kv[i].(string))
		a.Vals = append(a.Vals, kv[i+1].(Arg))
	}
	return a
}

func show(vs []Value) string {
	var parts []string
	for _, v := range vs {
		if v.Kind == String {
			parts = append(parts, "'"+v.Text+"'")
		} else {
			parts = append(parts, v.Text)
		}
	}
	return strings.Join(parts, " ")
}

func strs(ss ...string) []Value {
	var vs []Value
	for _, s := range ss {
		vs = append(vs, Str(s))
	}
	return vs
}

func TestProcessors(t *testing.T) {
	base, _ := url.Parse("https://shop.example/a/b.html")
	tests := []struct {
		name string
		arg  Arg
		in   []Value
		want string
		why  string
	}{
		{"strip", Arg{}, strs("  a b \n"), "'a b'", ""},
		{"strip", scalar("£ "), strs("£ 5 "), "'5'", ""},
		{"normalize_space", Arg{}, strs(" a \n\t b  c "), "'a b c'", ""},
		{"lower", Arg{}, strs("AbC"), "'abc'", ""},
		{"upper", Arg{}, strs("AbC"), "'ABC'", ""},
		{"replace", list(scalar(`£\s*`), scalar("")), strs("£ 51.77"), "'51.77'", ""},
		{"replace", list(scalar(`(\d+)-(\d+)`), scalar("${2}-${1}")), strs("1-2"), "'2-1'", ""},
		{"regex", scalar(`\d+`), strs("a 1 b 22"), "'1' '22'", ""},
		{"regex", scalar(`(\w+)=(\d+)`), strs("a=1 b=2"), "'a' '1' 'b' '2'", ""},
		{"regex", scalar(`star-rating (\w+)`), strs("star-rating Three"), "'Three'", ""},
		{"regex", scalar(`x`), strs("abc"), "", `regex "x" did not match "abc"`},
		{"split", Arg{}, strs("a, b,,c"), "'a' 'b' 'c'", ""},
		{"split", scalar("|"), strs("a|b"), "'a' 'b'", ""},
		{"join", Arg{}, strs("a", "b"), "'a b'", ""},
		{"join", scalar(", "), strs("a", "b"), "'a, b'", ""},
		{"join", Arg{}, nil, "", ""},
		{"first", Arg{}, strs("a", "b"), "'a'", ""},
		{"default", scalar("n/a"), nil, "'n/a'", ""},
		{"default", num("0"), strs("x"), "'x'", ""},
		{"default", num("0"), nil, "0", ""},
		{"absolute_url", Arg{}, strs("../c?x=1", "https://o.example/", "//cdn.example/i.png"),
			"'https://shop.example/c?x=1' 'https://o.example/' 'https://cdn.example/i.png'", ""},
		// A stray "%" is written "%25", as a link with one is followed.
		{"absolute_url", Arg{}, strs("/img/50%off.png", "100%.html?q=1%"),
			"'https://shop.example/img/50%25off.png' 'https://shop.example/a/100%25.html?q=1%'", ""},
		{"int", Arg{}, strs("In stock (22 available)"), "22", ""},
		{"int", Arg{}, strs("1,234"), "1234", ""},
		{"int", Arg{}, strs("22.00"), "22", ""},
		{"int", Arg{}, strs("22.5"), "", "int: 22.5 is not a whole number"},
		{"int", Arg{}, strs("none"), "", `int: no number in "none"`},
		{"int", Arg{}, []Value{{Kind: Number, Text: "3e2"}}, "300", ""},
		{"float", Arg{}, strs("£51.77"), "51.77", ""},
		{"float", Arg{}, strs("1.234,56 €"), "1234.56", ""},
		{"float", Arg{}, strs("51,77"), "51.77", ""},
		{"float", Arg{}, strs("1 234 567,5"), "1234567.5", ""},
		{"float", Arg{}, strs("-0.50"), "-0.50", ""},
		{"float", scalar(","), strs("1.234"), "1234", ""},
		{"float", mapping("decimal", scalar(",")), strs("12,5"), "12.5", ""},
		{"float", Arg{}, strs("SKU-12"), "12", ""},
		{"float", Arg{}, strs("12345678901234567890.25"), "12345678901234567890.25", ""},
		{"date", Arg{}, strs("2024-05-01"), "'2024-05-01T00:00:00Z'", ""},
		{"date", Arg{}, strs("2024-05"), "'2024-05-01T00:00:00Z'", ""},
		{"date", Arg{}, strs("2024"), "'2024-01-01T00:00:00Z'", ""},
		{"date", Arg{}, strs("Wed, 01 May 2024 10:00:00 +0200"), "'2024-05-01T10:00:00+02:00'", ""},
		{"date", Arg{}, strs("May 1, 2024"), "'2024-05-01T00:00:00Z'", ""},
		{"date", scalar("%d/%m/%Y"), strs("01/05/2024"), "'2024-05-01T00:00:00Z'", ""},
		{"date", list(scalar("%Y"), scalar("%d.%m.%Y %H:%M")), strs("01.05.2024 10:30"), "'2024-05-01T10:30:00Z'", ""},
		{"date", Arg{}, strs("soon"), "", `date: not a date this processor knows: "soon" (give a strftime format)`},
		{"map", mapping("One", num("1"), "Two", num("2")), strs("Two", "Six"), "2", `map: "Six" is not one of One, Two`},
		{"replace", list(scalar(`(\d+)-(\d+)`), scalar("${2}_$1 $$ $ ${x")), strs("10-20"), "'20_10 $ $ ${x'", ""},
		{"replace", list(scalar(`(?P<a>\w)`), scalar("[$a$0]")), strs("x"), "'[xx]'", ""},
		{"replace", list(scalar(`\\`), scalar(`/`)), strs(`a\b`), "'a/b'", ""},
		{"json", Arg{}, strs(`{"a":[1,2.50]}`, `"s"`, `12345678901234567890`), `{"a":[1,2.50]} 's' 12345678901234567890`, ""},
	}
	for _, tt := range tests {
		p, err := New(tt.name, tt.arg)
		if err != nil {
			t.Errorf("New(%s): %v", tt.name, err)
			continue
		}
		var why []string
		got := Chain{p}.Apply(&Context{Base: func() *url.URL { return base }}, tt.in, func(proc, reason string) { why = append(why, reason) })
		if show(got) != tt.want || strings.Join(why, "; ") != tt.why {
			t.Errorf("%s(%v) on %s = %s (why %q), want %s (why %q)", tt.name, tt.arg, show(tt.in), show(got), why, tt.want, tt.why)
		}
	}
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		name string
		arg  Arg
		want string
	}{
		{"nope", Arg{}, `unknown processor "nope"`},
		{"strip", list(), "strip takes the characters to remove"},
		{"lower", scalar("x"), "lower takes no argument, got a string"},
		{"replace", scalar("x"), "replace takes [REGEX, REPLACEMENT]"},
		{"replace", list(scalar("("), scalar("")), "replace: error parsing regexp"},
		{"regex", scalar("(?=x)"), "no look-around"},
		{"default", Arg{}, "default takes the value"},
		{"map", scalar("x"), "map takes a mapping"},
		{"int", scalar(";"), `int takes the decimal separator, "." or ","`},
		{"date", scalar("Y-m-d"), `has no % directive`},
		{"date", scalar("%Q"), `date: "%Q" cannot be read: unexpected format "%Q"`},
		{"date", list(scalar("%d/%m/%Y"), scalar("%d %!")), `date: "%d %!" cannot be read: unexpected format "%!"`},
		{"date", scalar("%Y-%"), `stray "%"`},
		{"date", scalar("week %V"), `use "%G" to parse ISO year for "%V"`},
		{"join", list(), "join takes the separator"},
		// A group the regex does not have is always empty: a mistake.
		{"replace", list(scalar(`(\d+)-(\d+)`), scalar("$2_$1")), `replace: "$2_" is no group of the regex (a group's name takes the letters, digits and _ after $: write ${2}_)`},
		{"replace", list(scalar(`(\d+) mm`), scalar("$1мм")), `replace: "$1мм" is no group of the regex (a group's name takes the letters, digits and _ after $: write ${1}мм)`},
		{"replace", list(scalar(`(\d+)`), scalar("${2}")), `replace: "${2}" is no group of the regex (it has 1)`},
		{"replace", list(scalar(`(?P<w>\w+)`), scalar("$word")), `replace: "$word" is no group of the regex (its named groups: w)`},
		{"replace", list(scalar(`(\d+)-(\d+)`), scalar(`\2-\1`)), `replace: \2 is Python's way to write a group: write ${2}`},
		{"replace", list(scalar(`(?P<x>\d+)`), scalar(`\g<x>`)), `replace: \g<x> is Python's way to write a group: write ${x}`},
	}
	for _, tt := range tests {
		_, err := New(tt.name, tt.arg)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("New(%s, %v) = %v, want %q", tt.name, tt.arg, err, tt.want)
		}
	}
}

func TestChainOrderAndLaziness(t *testing.T) {
	mk := func(name string, arg Arg) Proc {
		p, err := New(name, arg)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	ch := Chain{mk("regex", scalar(`\d+`)), mk("int", Arg{}), mk("default", num("0"))}
	if ch.Lazy() {
		t.Fatal("default is not lazy")
	}
	if got := show(ch.Apply(nil, strs("x"), nil)); got != "0" {
		t.Fatalf("got %s", got)
	}
	if got := show(ch.Apply(nil, strs("a 7 b 8"), nil)); got != "7 8" {
		t.Fatalf("got %s", got)
	}
	lazy := Chain{mk("strip", Arg{}), mk("upper", Arg{})}
	if !lazy.Lazy() || show(lazy.ApplyOne(nil, Str(" a "), nil)) != "'A'" {
		t.Fatal("lazy chain")
	}
	// Blank strings are no value, between processors too.
	if got := (Chain{mk("replace", list(scalar(".*"), scalar(" ")))}).Apply(nil, strs("x"), nil); len(got) != 0 {
		t.Fatalf("blank kept: %v", got)
	}
}

func TestParseNumber(t *testing.T) {
	tests := []struct {
		in      string
		decimal byte
		want    string
	}{
		{"0", 0, "0"}, {"007", 0, "7"}, {"-0", 0, "0"}, {"−5", 0, "-5"}, {"a-5", 0, "5"},
		{"1,234,567.89", 0, "1234567.89"}, {"1.234.567,89", 0, "1234567.89"}, {"1'234.5", 0, "1234.5"},
		{"12 345", 0, "12345"}, {"12 34", 0, "12"}, {"1\u00a0234,5", 0, "1234.5"}, {"3.", 0, "3"},
		{"1.234", 0, "1.234"}, {"1.234", ',', "1234"}, {"1,5", '.', "15"}, {"v2.0.1", 0, "201"},
		// A number written without its leading zero: "$.99" was 99.
		{"$.99", 0, "0.99"}, {".5 kg", 0, "0.5"}, {"-.25", 0, "-0.25"}, {"€ ,50", ',', "0.50"}, {",5", 0, "0.5"},
		{"(.5)", 0, "0.5"}, {"Rs.500", 0, "500"}, {"No.5", 0, "5"}, {".5", ',', "5"}, {"x .5", 0, "0.5"},
	}
	for _, tt := range tests {
		got, ok := ParseNumber(tt.in, tt.decimal)
		if !ok || got != tt.want {
			t.Errorf("ParseNumber(%q, %q) = %q, %v; want %q", tt.in, tt.decimal, got, ok, tt.want)
		}
	}
}

// checkStrftime takes the formats dates are written in.
func TestDateAcceptsCommonFormats(t *testing.T) {
	for _, f := range []string{
		"%d/%m/%Y", "%m/%d/%y", "%B %d, %Y", "%d %B %Y %H:%M", "%e %b %Y", "%A, %d %B %Y",
		"%Y-%m-%dT%H:%M:%S%z", "%Y-%m-%dT%H:%M:%S.%f%:z", "%a, %d %b %Y %H:%M:%S %Z", "%c",
		"%I:%M %p, %d.%m.%Y", "%s", "%Y%m%d", "%j/%Y", "%G-W%V-%u", "%F %T", "Published: %d/%m/%Y",
		"%Y-%m-%d%n%H:%M", "100%% %Y",
	} {
		if _, err := New("date", Arg{Kind: ScalarArg, Scalar: Str(f)}); err != nil {
			t.Errorf("date %q: %v", f, err)
		}
	}
}

// TestChainSingle: a chain whose last word on how many values there are
// is join or first gives one value, which a field written as a list
// (all: true) writes as that value, not as a list of one.
func TestChainSingle(t *testing.T) {
	mk := func(name string, arg Arg) Proc {
		p, err := New(name, arg)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name  string
		chain Chain
		want  bool
	}{
		{"none", nil, false},
		{"join", Chain{mk("join", Arg{})}, true},
		{"first", Chain{mk("strip", Arg{}), mk("first", Arg{})}, true},
		{"join then per value", Chain{mk("join", scalar(", ")), mk("upper", Arg{}), mk("default", scalar("-"))}, true},
		{"join then split", Chain{mk("join", Arg{}), mk("split", Arg{})}, false},
		{"join then regex", Chain{mk("join", Arg{}), mk("regex", scalar(`\d+`))}, false},
		{"split then join", Chain{mk("split", Arg{}), mk("join", Arg{})}, true},
		{"per value only", Chain{mk("strip", Arg{}), mk("int", Arg{})}, false},
	}
	for _, tt := range tests {
		if got := tt.chain.Single(); got != tt.want {
			t.Errorf("%s: Single() = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestDateZoneNames: a date written with a zone name is the instant it
// names. RFC 822's names (RSS, mail, HTTP) have their offsets; GMT+2 is two
// hours east; a name that is not one of them (CEST, BST: each means more than
// one zone) is no date, where Go's parser would read it as UTC.
func TestDateZoneNames(t *testing.T) {
	tests := []struct {
		arg  Arg
		in   string
		want string
		why  string
	}{
		{Arg{}, "Wed, 01 May 2024 10:00:00 GMT", "'2024-05-01T10:00:00Z'", ""},
		{Arg{}, "Wed, 01 May 2024 10:00:00 UTC", "'2024-05-01T10:00:00Z'", ""},
		{Arg{}, "Wed, 01 May 2024 10:00:00 EST", "'2024-05-01T10:00:00-05:00'", ""},
		{Arg{}, "Wed, 01 May 2024 10:00:00 EDT", "'2024-05-01T10:00:00-04:00'", ""},
		{Arg{}, "Wed, 01 May 2024 10:00:00 PST", "'2024-05-01T10:00:00-08:00'", ""},
		{Arg{}, "Wed, 01 May 2024 10:00:00 CDT", "'2024-05-01T10:00:00-05:00'", ""},
		{Arg{}, "Wednesday, 01-May-24 10:00:00 MST", "'2024-05-01T10:00:00-07:00'", ""},
		{Arg{}, "Wed May  1 10:00:00 2024", "'2024-05-01T10:00:00Z'", ""},
		{Arg{}, "Wed, 01 May 2024 10:00:00 GMT+2", "'2024-05-01T10:00:00+02:00'", ""},
		{Arg{}, "Wed, 01 May 2024 10:00:00 GMT-3", "'2024-05-01T10:00:00-03:00'", ""},
		{Arg{}, "Wed, 01 May 2024 10:00:00 CEST", "", `date: not a date this processor knows: "Wed, 01 May 2024 10:00:00 CEST" (give a strftime format)`},
		{scalar("%d.%m.%Y %H:%M %Z"), "01.05.2024 10:30 UTC", "'2024-05-01T10:30:00Z'", ""},
		{scalar("%d.%m.%Y %H:%M %Z"), "01.05.2024 10:30 GMT", "'2024-05-01T10:30:00Z'", ""},
		{scalar("%d.%m.%Y %H:%M %Z"), "01.05.2024 10:30 PDT", "'2024-05-01T10:30:00-07:00'", ""},
		{scalar("%d.%m.%Y %H:%M %Z"), "01.05.2024 10:30 BST", "", `date: "01.05.2024 10:30 BST" does not match %d.%m.%Y %H:%M %Z`},
		// Seconds since the epoch are the instant; the name gives its offset.
		{scalar("%s %Z"), "1714557600 EST", "'2024-05-01T05:00:00-05:00'", ""},
		{scalar("%s %Z"), "1714557600 GMT", "'2024-05-01T10:00:00Z'", ""},
	}
	for _, tt := range tests {
		p, err := New("date", tt.arg)
		if err != nil {
			t.Fatalf("New(date, %v): %v", tt.arg, err)
		}
		var why []string
		got := Chain{p}.Apply(&Context{}, strs(tt.in), func(proc, reason string) { why = append(why, reason) })
		if show(got) != tt.want || strings.Join(why, "; ") != tt.why {
			t.Errorf("date(%v) on %q = %s (why %q), want %s (why %q)", tt.arg, tt.in, show(got), why, tt.want, tt.why)
		}
	}
}

package cexport

import (
	"slices"
	"strings"
	"testing"
)

// TestNamesValue: --key and --type follow --fields' rule: split at the
// commas a backslash does not escape, a backslash making the next
// character part of the name, nothing else special. They used to be
// pflag string slices, read as a line of CSV: --key 'b"c' was refused
// ("bare \" in non-quoted-field"), and a comma in a name needed CSV
// quotes ('"a,b"'), which nothing documented.
func TestNamesValue(t *testing.T) {
	for _, tc := range []struct {
		name string
		sets []string // the values given, in order (the flag repeated)
		want string   // the names joined by |, or the error
	}{
		{"plain", []string{"url,sku"}, "url|sku"},
		{"a quote in a name", []string{`b"c`}, `b"c`},
		{"quotes around a name are part of it", []string{`"a,b"`}, `"a|b"`},
		{"a comma in a name", []string{`sku\, EU,url`}, "sku, EU|url"},
		{"a backslash", []string{`a\\b`}, `a\b`},
		{"an escaped backslash before a comma", []string{`a\\,b`}, `a\|b`},
		{"any other character escaped is itself", []string{`og\:title,\"x`}, `og:title|"x`},
		{"a colon is itself", []string{"og:title"}, "og:title"},
		{"spaces are kept", []string{"a, b"}, "a| b"},
		{"non-ASCII", []string{`Цена,über\,ß`}, "Цена|über,ß"},
		{"repeated", []string{"product", `review,size "L"`}, `product|review|size "L"`},
		{"empty value: no names", []string{""}, ""},
		{"an empty entry", []string{"a,,b"}, `--key "a,,b": empty field name`},
		{"an empty entry beside an escaped comma", []string{`a\,b,`}, `--key "a\\,b,": empty field name`},
		{"a backslash at the end", []string{`a\`}, `a backslash at the end (\\ is a backslash, \, a comma)`},
		{"the same name twice", []string{`a\,b`, `a\,b`}, `--key: field "a,b" is named twice`},
	} {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			var list []string
			v := newNameList(&list)
			var err error
			for _, s := range tc.sets {
				if err = v.Set(s); err != nil {
					break
				}
			}
			if err == nil {
				err = checkNames("--key", list)
			}
			got := strings.Join(list, "|")
			if err != nil {
				got = err.Error()
			}
			if err != nil && !strings.Contains(got, tc.want) || err == nil && got != tc.want {
				t.Errorf("%q: %s, want %s", tc.sets, got, tc.want)
			}
			// String gives a value that sets the same list again.
			var again []string
			if err := newNameList(&again).Set(v.String()); err != nil {
				t.Errorf("String %q: %v", v.String(), err)
			}
			if len(list) > 0 && !slices.Equal(again, list) {
				t.Errorf("String %q sets %q, not %q", v.String(), again, list)
			}
		})
	}
}

// TestSplitList: the one splitter of the list flags and of a --fields
// entry's FROM:TO keeps the escapes for unescape.
func TestSplitList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		sep  byte
		want []string
	}{
		{"", ',', []string{}},
		{"a", ',', []string{"a"}},
		{"a,b", ',', []string{"a", "b"}},
		{`a\,b,c`, ',', []string{`a\,b`, "c"}},
		{`a\\,b`, ',', []string{`a\\`, "b"}},
		{`a\`, ',', []string{`a\`}},
		{",", ',', []string{"", ""}},
		{`og\:title:t`, ':', []string{`og\:title`, "t"}},
		{"a:b:c", ':', []string{"a", "b", "c"}},
	} {
		var got []string
		if tc.sep == ',' {
			got = splitList(tc.in)
		} else {
			got = splitUnescaped(tc.in, tc.sep)
		}
		if !slices.Equal(got, tc.want) || got == nil {
			t.Errorf("split %q at %q: %q, want %q", tc.in, tc.sep, got, tc.want)
		}
	}
}

// FuzzNameList: any value of --key or --type is names or refused without
// panicking; the names, given again as String writes them, are the same
// names, and one name escaped (joinNames) is one entry.
func FuzzNameList(f *testing.F) {
	for _, s := range []string{"url", "a,b", `b"c`, `"a,b"`, `a\,b`, `a\\,b`, `a\`, ",", "", `og\:t`, "é,ü"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var list []string
		v := newNameList(&list)
		if err := v.Set(s); err != nil {
			if !strings.HasSuffix(s, `\`) {
				t.Fatalf("%q: %v, though it does not end in a backslash", s, err)
			}
			return
		}
		var again []string
		if err := newNameList(&again).Set(v.String()); err != nil || !slices.Equal(again, list) {
			t.Fatalf("%q: %q, set again from %q: %q, %v", s, list, v.String(), again, err)
		}
		for _, name := range list {
			var one []string
			if err := newNameList(&one).Set(joinNames([]string{name})); err != nil || len(one) != 1 && name != "" || len(one) == 1 && one[0] != name {
				t.Fatalf("%q: name %q escaped is %q, which sets %q, %v", s, name, joinNames([]string{name}), one, err)
			}
		}
	})
}

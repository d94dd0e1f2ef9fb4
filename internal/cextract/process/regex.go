package process

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// CompileRegexp compiles a rules-file regular expression (Go's RE2 syntax),
// saying what is not supported when it fails.
func CompileRegexp(src string) (*regexp.Regexp, error) {
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, fmt.Errorf("%v (Go RE2 syntax: no look-around or back-references)", err)
	}
	return re, nil
}

// Extract returns what re finds in s, as Scrapy's Selector.re() does: for
// each match, the whole match when re has no groups, else each group in
// order (groups that did not take part are left out).
func Extract(re *regexp.Regexp, s string, out []Value) []Value {
	if re.NumSubexp() == 0 {
		for _, m := range re.FindAllString(s, -1) {
			out = append(out, Str(m))
		}
		return out
	}
	for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
		for g := 1; 2*g < len(m); g++ {
			if m[2*g] >= 0 {
				out = append(out, Str(s[m[2*g]:m[2*g+1]]))
			}
		}
	}
	return out
}

// ExtractFirst returns the first value Extract would, without looking
// for the others.
func ExtractFirst(re *regexp.Regexp, s string) (string, bool) {
	m := re.FindStringSubmatchIndex(s)
	if m == nil {
		return "", false
	}
	if len(m) == 2 {
		return s[m[0]:m[1]], true
	}
	for g := 1; 2*g < len(m); g++ {
		if m[2*g] >= 0 {
			return s[m[2*g]:m[2*g+1]], true
		}
	}
	return "", false
}

// RegexProc is the regex processor for an already compiled expression (a
// field's "re:" key).
func RegexProc(re *regexp.Regexp) Proc {
	return Proc{name: "re", each: regexEach(re)}
}

func regexEach(re *regexp.Regexp) func(*Context, Value, []Value) ([]Value, string) {
	return func(_ *Context, v Value, out []Value) ([]Value, string) {
		n := len(out)
		out = Extract(re, v.Text, out)
		if len(out) == n {
			return out, fmt.Sprintf("regex %s did not match %s", quote(re.String()), quote(v.Text))
		}
		return out, ""
	}
}

func regexProc(arg Arg) (func(*Context, Value, []Value) ([]Value, string), error) {
	src, ok := arg.str()
	if !ok {
		return nil, fmt.Errorf("regex takes a regular expression, a string, got %s", arg.describe())
	}
	re, err := CompileRegexp(src)
	if err != nil {
		return nil, fmt.Errorf("regex: %v", err)
	}
	return regexEach(re), nil
}

func replaceProc(arg Arg) (func(*Context, Value, []Value) ([]Value, string), error) {
	var pat, with string
	ok := arg.Kind == ListArg && len(arg.List) == 2
	if ok {
		var ok1, ok2 bool
		pat, ok1 = arg.List[0].str()
		with, ok2 = arg.List[1].str()
		ok = ok1 && ok2
	}
	if !ok {
		return nil, fmt.Errorf("replace takes [REGEX, REPLACEMENT], two strings (${1} for a group), got %s", arg.describe())
	}
	re, err := CompileRegexp(pat)
	if err != nil {
		return nil, fmt.Errorf("replace: %v", err)
	}
	if err := checkReplacement(re, with); err != nil {
		return nil, fmt.Errorf("replace: %v", err)
	}
	return stringProc(func(s string) string { return re.ReplaceAllString(s, with) }), nil
}

// checkReplacement finds, in a replacement, a group the regex does not
// have, which Go's regexp writes as nothing ("$2_" is the group named
// "2_"), and Python's \1 and \g<name>, which it writes as they are.
func checkReplacement(re *regexp.Regexp, with string) error {
	for i := 0; i < len(with); i++ {
		switch {
		case with[i] == '\\' && i+1 < len(with) && with[i+1] >= '1' && with[i+1] <= '9':
			j := i + 2
			for j < len(with) && with[j] >= '0' && with[j] <= '9' {
				j++
			}
			return fmt.Errorf("%s is Python's way to write a group: write ${%s}", with[i:j], with[i+1:j])
		case strings.HasPrefix(with[i:], `\g<`):
			if end := strings.IndexByte(with[i:], '>'); end > 0 {
				return fmt.Errorf("%s is Python's way to write a group: write ${%s}", with[i:i+end+1], with[i+3:i+end])
			}
		case with[i] == '$' && i+1 < len(with):
			if with[i+1] == '$' {
				i++
				continue
			}
			ref, name, braced := groupRef(with[i:])
			if ref == "" {
				continue
			}
			if !hasGroup(re, name) {
				return fmt.Errorf("%q is no group of the regex (%s)", ref, groupHint(re, name, braced))
			}
			i += len(ref) - 1
		}
	}
	return nil
}

// groupHint says what a reference to the group name, which re does not
// have, was meant to be.
func groupHint(re *regexp.Regexp, name string, braced bool) string {
	if !braced {
		// "$2_" is the group named "2_"; ${2}_ was meant.
		k := 0
		for k < len(name) && name[k] >= '0' && name[k] <= '9' {
			k++
		}
		if k > 0 && k < len(name) && hasGroup(re, name[:k]) {
			return fmt.Sprintf("a group's name takes the letters, digits and _ after $: write ${%s}%s", name[:k], name[k:])
		}
	}
	if groupNumber(name) >= 0 {
		return fmt.Sprintf("it has %d", re.NumSubexp())
	}
	var names []string
	for _, n := range re.SubexpNames() {
		if n != "" {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return "it has no named group"
	}
	return "its named groups: " + strings.Join(names, ", ")
}

// groupRef reads a group reference as regexp.Expand does, at the "$" that
// begins s: "$name" (the longest run of letters, digits and _, in any
// script: "$1мм" names the group "1мм") or "${name}". It returns "" where
// Expand writes the "$" as it is.
func groupRef(s string) (ref, name string, braced bool) {
	isName := func(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }
	if strings.HasPrefix(s, "${") {
		end := strings.IndexByte(s, '}')
		if end < 3 {
			return "", "", false
		}
		for _, r := range s[2:end] {
			if !isName(r) {
				return "", "", false
			}
		}
		return s[:end+1], s[2:end], true
	}
	j := 1
	for j < len(s) {
		r, n := utf8.DecodeRuneInString(s[j:])
		if !isName(r) {
			break
		}
		j += n
	}
	if j == 1 {
		return "", "", false
	}
	return s[:j], s[1:j], false
}

// groupNumber is name as a group number, as regexp.Expand reads it, or -1.
func groupNumber(name string) int {
	if name == "" || len(name) > 1 && name[0] == '0' || len(name) > 8 {
		return -1
	}
	n := 0
	for i := 0; i < len(name); i++ {
		if name[i] < '0' || name[i] > '9' {
			return -1
		}
		n = n*10 + int(name[i]-'0')
	}
	return n
}

// hasGroup reports whether regexp.Expand finds the group name in re.
func hasGroup(re *regexp.Regexp, name string) bool {
	if n := groupNumber(name); n >= 0 {
		return n <= re.NumSubexp()
	}
	return re.SubexpIndex(name) >= 0
}

// jsonProc parses a string as JSON (an embedded JSON-LD block, a data
// attribute): objects and arrays become JSON values, strings, numbers and
// booleans their own kind.
func jsonProc(_ *Context, v Value, out []Value) ([]Value, string) {
	if v.Kind != String {
		return append(out, v), ""
	}
	d := json.NewDecoder(bytes.NewReader([]byte(v.Text)))
	d.UseNumber()
	var x any
	if err := d.Decode(&x); err != nil {
		return out, "json: " + err.Error()
	}
	if d.More() {
		return out, "json: more than one value in " + quote(v.Text)
	}
	return append(out, FromJSON(x)), ""
}

// FromJSON turns a decoded JSON value (numbers as json.Number, or int,
// float64 and *big.Int as gojq makes them) into a Value. null gives the
// JSON value null.
func FromJSON(x any) Value {
	switch t := x.(type) {
	case string:
		return Str(t)
	case bool:
		if t {
			return Value{Kind: Bool, Text: "true"}
		}
		return Value{Kind: Bool, Text: "false"}
	case json.Number:
		return Value{Kind: Number, Text: t.String()}
	case nil:
		return Value{Kind: JSON, Text: "null"}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(x); err != nil {
		return Value{Kind: JSON, Text: "null"}
	}
	text := string(bytes.TrimRight(b.Bytes(), "\n"))
	switch x.(type) {
	case int, float64, float32, int64:
		return Value{Kind: Number, Text: text}
	}
	if len(text) > 0 && (text[0] == '-' || text[0] >= '0' && text[0] <= '9') {
		return Value{Kind: Number, Text: text} // *big.Int
	}
	return Value{Kind: JSON, Text: text}
}

package process

import (
	"fmt"
	"strings"
)

// numberProc is int or float. The argument, when given, is the decimal
// separator ("." or ","), or {decimal: ","}.
func numberProc(name string, arg Arg) (func(*Context, Value, []Value) ([]Value, string), error) {
	var decimal byte
	switch arg.Kind {
	case NoArg:
	case ScalarArg, MapArg:
		s, ok := arg.str()
		if arg.Kind == MapArg {
			ok = len(arg.Keys) == 1 && arg.Keys[0] == "decimal"
			if ok {
				s, ok = arg.Vals[0].str()
			}
		}
		if !ok || s != "." && s != "," {
			return nil, fmt.Errorf(`%s takes the decimal separator, "." or "," (default: guessed), got %s`, name, arg.describe())
		}
		decimal = s[0]
	default:
		return nil, fmt.Errorf(`%s takes the decimal separator, "." or ",", got %s`, name, arg.describe())
	}
	integer := name == "int"
	return func(_ *Context, v Value, out []Value) ([]Value, string) {
		text := v.Text
		if v.Kind == Bool || v.Kind == JSON {
			return out, fmt.Sprintf("%s: not a number: %s", name, text)
		}
		var n string
		var ok bool
		if v.Kind == Number {
			n, ok = normalizeJSONNumber(text)
		} else {
			n, ok = ParseNumber(text, decimal)
		}
		if !ok {
			return out, fmt.Sprintf("%s: no number in %s", name, quote(text))
		}
		if integer {
			i, isInt := toInteger(n)
			if !isInt {
				return out, fmt.Sprintf("int: %s is not a whole number", n)
			}
			n = i
		}
		return append(out, Value{Kind: Number, Text: n}), ""
	}, nil
}

// ParseNumber finds the first number in s and returns it as a JSON number,
// exactly (no rounding through float64): "£1,234.50" → "1234.50",
// "In stock (22 available)" → "22", "1.234,5" → "1234.5", "-3" → "-3",
// "$.99" → "0.99".
//
// Thousands separators (",", ".", "'", spaces, no-break spaces) are
// dropped. decimal is the decimal separator, '.' or ','; when it is 0 it is
// guessed: of two different separators the last one is decimal; a lone
// separator is decimal unless it is a "," followed by exactly three digits
// ("1,234" is 1234, "51,77" is 51.77, "1.234" is 1.234); a separator seen
// twice is a thousands separator.
func ParseNumber(s string, decimal byte) (string, bool) {
	start := -1
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			start = i
			break
		}
	}
	if start < 0 {
		return "", false
	}
	// A fraction written without its leading zero: "$.99", "-.5", "€ ,50"
	// with "," the decimal separator. Not after a letter or digit: "Rs.500"
	// is 500.
	before := start
	if lead := leadingFraction(s, start, decimal); lead {
		before = start - 1
	}
	neg := false
	if p := strings.TrimSuffix(strings.TrimSuffix(s[:before], "-"), "\u2212"); len(p) < before {
		// A minus sign, not a hyphen inside a word ("SKU-12").
		neg = p == "" || !isAlnum(p[len(p)-1])
	}
	if before < start {
		j := start
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		n := "0." + s[start:j]
		if neg && strings.Trim(s[start:j], "0") != "" {
			n = "-" + n
		}
		return n, true
	}
	// Groups of digits and the separators between them.
	var groups []string
	var seps []string
	i := start
	for {
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		groups = append(groups, s[i:j])
		sep, n := separatorAt(s, j)
		if n == 0 || j+n >= len(s) || s[j+n] < '0' || s[j+n] > '9' {
			break
		}
		// A space only separates thousands: exactly three digits after it.
		if sep == " " {
			k := j + n
			for k < len(s) && s[k] >= '0' && s[k] <= '9' {
				k++
			}
			if k-(j+n) != 3 {
				break
			}
		}
		seps = append(seps, sep)
		i = j + n
	}
	dec := -1 // index in seps of the decimal separator
	if len(seps) > 0 {
		last := seps[len(seps)-1]
		count := 0
		for _, x := range seps {
			if x == last {
				count++
			}
		}
		switch {
		case decimal != 0:
			if last == string(decimal) {
				dec = len(seps) - 1
			}
		case count > 1 || last == " " || last == "'":
		case len(seps) > 1:
			dec = len(seps) - 1
		case last == "," && len(groups[len(groups)-1]) == 3:
		default:
			dec = len(seps) - 1
		}
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	intPart := strings.Join(groups[:len(groups)-boolInt(dec >= 0)], "")
	intPart = strings.TrimLeft(intPart, "0")
	if intPart == "" {
		intPart = "0"
	}
	b.WriteString(intPart)
	if dec >= 0 {
		b.WriteByte('.')
		b.WriteString(groups[len(groups)-1])
	}
	n := b.String()
	if n == "-0" {
		n = "0"
	}
	return n, true
}

// leadingFraction says whether the digits at s[start] follow a decimal
// separator that begins the number: "." or "," (the one given as decimal,
// if one is) after no letter or digit; a "," guessed is decimal unless
// exactly three digits follow it, as in the middle of a number.
func leadingFraction(s string, start int, decimal byte) bool {
	if start == 0 {
		return false
	}
	sep := s[start-1]
	if sep != '.' && sep != ',' || start >= 2 && isAlnum(s[start-2]) {
		return false
	}
	if decimal != 0 {
		return sep == decimal
	}
	if sep == ',' {
		j := start
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		return j-start != 3
	}
	return true
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// separatorAt returns the digit separator at s[i] and its length in bytes.
func separatorAt(s string, i int) (string, int) {
	if i >= len(s) {
		return "", 0
	}
	switch s[i] {
	case ',', '.', '\'':
		return s[i : i+1], 1
	case ' ':
		return " ", 1
	}
	for _, sp := range []string{"\u00a0", "\u202f", "\u2009"} {
		if strings.HasPrefix(s[i:], sp) {
			return " ", len(sp)
		}
	}
	return "", 0
}

// normalizeJSONNumber checks a JSON number literal and returns it.
func normalizeJSONNumber(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", false
	}
	return s, true
}

// toInteger returns the JSON number n as an integer literal, if it is one
// ("22", "22.00", "2.2e1").
func toInteger(n string) (string, bool) {
	if e := strings.IndexAny(n, "eE"); e >= 0 {
		return expandExponent(n[:e], n[e+1:])
	}
	whole, frac, _ := strings.Cut(n, ".")
	if strings.Trim(frac, "0") != "" {
		return "", false
	}
	if whole == "-0" {
		whole = "0"
	}
	return whole, true
}

// expandExponent writes mant × 10^exp without an exponent when it is an
// integer of at most a few hundred digits.
func expandExponent(mant, exp string) (string, bool) {
	e := 0
	neg := false
	switch {
	case strings.HasPrefix(exp, "-"):
		neg, exp = true, exp[1:]
	case strings.HasPrefix(exp, "+"):
		exp = exp[1:]
	}
	if exp == "" || len(exp) > 3 {
		return "", false
	}
	for _, c := range exp {
		if c < '0' || c > '9' {
			return "", false
		}
		e = e*10 + int(c-'0')
	}
	if neg {
		e = -e
	}
	sign := ""
	if strings.HasPrefix(mant, "-") {
		sign, mant = "-", mant[1:]
	}
	whole, frac, _ := strings.Cut(mant, ".")
	digits := whole + frac
	point := len(whole) + e
	if point < 0 {
		point = 0
		digits = strings.Repeat("0", -(len(whole)+e)) + digits
	}
	for len(digits) < point {
		digits += "0"
	}
	if strings.Trim(digits[point:], "0") != "" {
		return "", false
	}
	out := strings.TrimLeft(digits[:point], "0")
	if out == "" {
		return "0", true
	}
	return sign + out, true
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// Package process holds the field processors of cextract's rules files,
// in the spirit of Scrapy's ItemLoader processors: each turns the values a
// selector found into cleaner ones (strip, normalize_space, replace, regex,
// int, float, date, map, absolute_url, …) or combines them (join, first,
// default). A field's processors form a Chain, applied in order.
//
// A Value is what a selector yields or a processor makes: a string, or a
// JSON number, boolean or other JSON value kept as its exact text. A
// processor that cannot handle a value drops it and says why, so that
// cextract --explain can tell a rules author why a field came out empty.
//
// Procs and Chains are immutable once built and safe for concurrent use.
package process

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/crawlutils/crawlutils/internal/percent"
)

// Kind is the type of a Value.
type Kind uint8

// Value kinds.
const (
	String Kind = iota // Text is the string
	Number             // Text is a JSON number, exactly as it will be written
	Bool               // Text is "true" or "false"
	JSON               // Text is any other JSON value (object, array, null), compact
)

// Value is one value of a field. The zero value is the empty string.
type Value struct {
	Kind Kind
	Text string
}

// Str returns a string value.
func Str(s string) Value { return Value{Text: s} }

// Blank reports whether v is no value at all: a string of white space only.
func (v Value) Blank() bool { return v.Kind == String && strings.TrimSpace(v.Text) == "" }

// Context is what processors may need besides the values: the URL that
// relative links resolve against (absolute_url). Base is called only when
// a processor needs it, at most once per Context.
type Context struct {
	Base func() *url.URL

	base    *url.URL
	baseSet bool
}

func (c *Context) baseURL() *url.URL {
	if c == nil || c.Base == nil {
		return nil
	}
	if !c.baseSet {
		c.base, c.baseSet = c.Base(), true
	}
	return c.base
}

// Proc is one compiled processor.
type Proc struct {
	name string
	// each maps one value to zero or more values, appended to out; when it
	// drops v it returns why.
	each func(c *Context, v Value, out []Value) ([]Value, string)
	// all works on the whole list (join, first, default).
	all func(vs []Value) []Value
}

// Name is the processor's name as written in the rules file.
func (p Proc) Name() string { return p.name }

// Chain is a field's processors, in order.
type Chain []Proc

// Lazy reports whether every processor of the chain works value by value,
// so that a field that takes its first value may stop at the first value
// that comes through the whole chain.
func (ch Chain) Lazy() bool {
	for _, p := range ch {
		if p.all != nil {
			return false
		}
	}
	return true
}

// Apply runs the chain over vs. why, when not nil, is told each value a
// processor dropped and the reason. Blank strings are dropped between
// processors without a reason (they are no value).
func (ch Chain) Apply(c *Context, vs []Value, why func(proc, reason string)) []Value {
	cur := vs
	var next []Value
	for _, p := range ch {
		next = next[:0:0]
		if p.all != nil {
			next = p.all(cur)
		} else {
			for _, v := range cur {
				var reason string
				next, reason = p.each(c, v, next)
				if reason != "" && why != nil {
					why(p.name, reason)
				}
			}
		}
		cur = dropBlank(next)
	}
	return cur
}

// Single reports whether the chain gives at most one value whatever it is
// given: its last processor that decides how many values there are is
// join or first (a split or a regex after it may make several again).
// A field that takes every value (all: true) writes a single chain's value
// as it is, not as a list of one.
func (ch Chain) Single() bool {
	single := false
	for _, p := range ch {
		switch p.name {
		case "join", "first":
			single = true
		case "split", "regex":
			single = false
		}
	}
	return single
}

// ApplyOne runs a lazy chain over one value.
func (ch Chain) ApplyOne(c *Context, v Value, why func(proc, reason string)) []Value {
	return ch.Apply(c, []Value{v}, why)
}

func dropBlank(vs []Value) []Value {
	out := vs[:0]
	for _, v := range vs {
		if !v.Blank() {
			out = append(out, v)
		}
	}
	return out
}

// Arg is a processor's argument as the rules file wrote it: nothing, a
// scalar, a list or a mapping (keys in order).
type Arg struct {
	Kind   ArgKind
	Scalar Value
	List   []Arg
	Keys   []string
	Vals   []Arg
}

// ArgKind says which of Arg's fields is set.
type ArgKind uint8

// Argument kinds.
const (
	NoArg ArgKind = iota
	ScalarArg
	ListArg
	MapArg
)

func (a Arg) describe() string {
	switch a.Kind {
	case NoArg:
		return "nothing"
	case ListArg:
		return "a list"
	case MapArg:
		return "a mapping"
	}
	switch a.Scalar.Kind {
	case Number:
		return "a number"
	case Bool:
		return "a boolean"
	case JSON:
		return "null"
	}
	return "a string"
}

// str returns a scalar argument as a string.
func (a Arg) str() (string, bool) {
	if a.Kind != ScalarArg || a.Scalar.Kind == JSON {
		return "", false
	}
	return a.Scalar.Text, true
}

// Names lists every processor, for error messages and documentation.
var Names = []string{
	"strip", "normalize_space", "lower", "upper", "replace", "regex", "split", "join", "first",
	"default", "absolute_url", "int", "float", "date", "map", "json",
}

// New compiles the processor name with its argument. The error says what
// the processor wants.
func New(name string, arg Arg) (Proc, error) {
	p := Proc{name: name}
	noArg := func() error {
		if arg.Kind != NoArg {
			return fmt.Errorf("%s takes no argument, got %s", name, arg.describe())
		}
		return nil
	}
	var err error
	switch name {
	case "strip":
		p.each, err = stripProc(arg)
	case "normalize_space":
		err = noArg()
		p.each = stringProc(normalizeSpace)
	case "lower":
		err = noArg()
		p.each = stringProc(strings.ToLower)
	case "upper":
		err = noArg()
		p.each = stringProc(strings.ToUpper)
	case "replace":
		p.each, err = replaceProc(arg)
	case "regex":
		p.each, err = regexProc(arg)
	case "split":
		p.each, err = splitProc(arg)
	case "join":
		sep := " "
		if arg.Kind != NoArg {
			s, ok := arg.str()
			if !ok {
				return p, fmt.Errorf("join takes the separator, a string (default \" \"), got %s", arg.describe())
			}
			sep = s
		}
		p.all = func(vs []Value) []Value {
			if len(vs) == 0 {
				return nil
			}
			parts := make([]string, len(vs))
			for i, v := range vs {
				parts[i] = v.Text
			}
			return []Value{Str(strings.Join(parts, sep))}
		}
	case "first":
		err = noArg()
		p.all = func(vs []Value) []Value {
			if len(vs) > 1 {
				return vs[:1]
			}
			return vs
		}
	case "default":
		if arg.Kind != ScalarArg {
			return p, fmt.Errorf("default takes the value to use when there is none, got %s", arg.describe())
		}
		d := arg.Scalar
		p.all = func(vs []Value) []Value {
			if len(vs) == 0 {
				return []Value{d}
			}
			return vs
		}
	case "absolute_url":
		err = noArg()
		p.each = absoluteURL
	case "int", "float":
		p.each, err = numberProc(name, arg)
	case "date":
		p.each, err = dateProc(arg)
	case "map":
		p.each, err = mapProc(arg)
	case "json":
		err = noArg()
		p.each = jsonProc
	default:
		return p, fmt.Errorf("unknown processor %q (known: %s)", name, strings.Join(Names, ", "))
	}
	return p, err
}

// stringProc applies f to string values and passes the others through.
func stringProc(f func(string) string) func(*Context, Value, []Value) ([]Value, string) {
	return func(_ *Context, v Value, out []Value) ([]Value, string) {
		if v.Kind == String {
			v.Text = f(v.Text)
		}
		return append(out, v), ""
	}
}

func stripProc(arg Arg) (func(*Context, Value, []Value) ([]Value, string), error) {
	if arg.Kind == NoArg {
		return stringProc(strings.TrimSpace), nil
	}
	chars, ok := arg.str()
	if !ok || chars == "" {
		return nil, fmt.Errorf("strip takes the characters to remove, a string (default: white space), got %s", arg.describe())
	}
	return stringProc(func(s string) string { return strings.Trim(s, chars) }), nil
}

// normalizeSpace trims s and collapses every run of white space in it to
// one space, like XPath's normalize-space() but for Unicode spaces too.
func normalizeSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

func splitProc(arg Arg) (func(*Context, Value, []Value) ([]Value, string), error) {
	sep := ","
	if arg.Kind != NoArg {
		s, ok := arg.str()
		if !ok || s == "" {
			return nil, fmt.Errorf("split takes the separator, a string (default \",\"), got %s", arg.describe())
		}
		sep = s
	}
	return func(_ *Context, v Value, out []Value) ([]Value, string) {
		if v.Kind != String {
			return append(out, v), ""
		}
		for _, part := range strings.Split(v.Text, sep) {
			out = append(out, Str(strings.TrimSpace(part)))
		}
		return out, ""
	}, nil
}

func absoluteURL(c *Context, v Value, out []Value) ([]Value, string) {
	if v.Kind != String {
		return out, "absolute_url: not a string: " + v.Text
	}
	s := strings.TrimSpace(v.Text)
	ref, err := percent.ParseURL(s) // a stray "%" ("50%off.png") written "%25", as a link's is
	if err != nil {
		return out, "absolute_url: not a URL: " + quote(v.Text)
	}
	if !ref.IsAbs() {
		base := c.baseURL()
		if base == nil {
			return out, "absolute_url: relative URL and no page URL: " + quote(v.Text)
		}
		ref = base.ResolveReference(ref)
	}
	return append(out, Str(ref.String())), ""
}

func mapProc(arg Arg) (func(*Context, Value, []Value) ([]Value, string), error) {
	if arg.Kind != MapArg || len(arg.Keys) == 0 {
		return nil, fmt.Errorf("map takes a mapping from values to their replacement, e.g. {One: 1, Two: 2}, got %s", arg.describe())
	}
	table := make(map[string]Value, len(arg.Keys))
	for i, k := range arg.Keys {
		if arg.Vals[i].Kind != ScalarArg {
			return nil, fmt.Errorf("map: %q: want a scalar replacement, got %s", k, arg.Vals[i].describe())
		}
		table[k] = arg.Vals[i].Scalar
	}
	keys := slices.Clone(arg.Keys)
	return func(_ *Context, v Value, out []Value) ([]Value, string) {
		if r, ok := table[v.Text]; ok {
			return append(out, r), ""
		}
		return out, fmt.Sprintf("map: %s is not one of %s", quote(v.Text), strings.Join(keys, ", "))
	}, nil
}

// quote shortens s for a message.
func quote(s string) string {
	if len(s) > 60 {
		cut := 57
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "..."
	}
	return strconv.Quote(s)
}

package cexport

import (
	"errors"
	"strings"
)

// The list flags --fields, --key and --type take names, and a name may
// hold any character: API data has fields like "price, EUR" or
// `size "L"`. One rule covers them: entries are separated by commas, a
// backslash makes the next character part of the name (\, a comma, \\ a
// backslash; in --fields \: a colon, see parseFieldSpec), and every other
// character is itself, a double quote too. So the shell's quotes are the
// only quotes. (A pflag string slice reads its value as a line of CSV:
// 'x"y' was refused with "bare \" in non-quoted-field", and a comma needed
// CSV quotes inside the shell's, '"a,b"', which nothing documented.)

// listFlag is the value of a list flag. Like a string slice, the first
// Set replaces the default, and each later one (the flag repeated, the
// environment, the items of a config file's list) adds to it; an empty
// value adds nothing.
type listFlag struct {
	list *[]string
	set  bool
	// names: each entry is a name, its escapes undone when set (--key,
	// --type). Otherwise the entries keep their escapes for
	// parseFieldSpec (--fields, whose entries are FIELD or FIELD:NAME).
	names bool
}

// newFieldList is the value of --fields: entries kept as given.
func newFieldList(p *[]string) *listFlag { return &listFlag{list: p} }

// newNameList is the value of --key and --type: names, unescaped.
func newNameList(p *[]string) *listFlag { return &listFlag{list: p, names: true} }

func (l *listFlag) Set(s string) error {
	entries := splitList(s)
	if l.names {
		for i, e := range entries {
			name, ok := unescape(e)
			if !ok {
				return errors.New(`a backslash at the end (\\ is a backslash, \, a comma)`)
			}
			entries[i] = name
		}
	}
	if !l.set {
		*l.list = entries
		l.set = true
		return nil
	}
	*l.list = append(*l.list, entries...)
	return nil
}

// String is the list as a value of the flag would give it.
func (l *listFlag) String() string {
	if l.names {
		return joinNames(*l.list)
	}
	return strings.Join(*l.list, ",")
}

func (l *listFlag) Type() string { return "strings" }

// nameEscaper escapes a name for a list flag.
var nameEscaper = strings.NewReplacer(`\`, `\\`, ",", `\,`)

// joinNames is names as one value of --key or --type would give them, for
// messages that show what to type.
func joinNames(names []string) string {
	escaped := make([]string, len(names))
	for i, n := range names {
		escaped[i] = nameEscaper.Replace(n)
	}
	return strings.Join(escaped, ",")
}

// splitList splits the value of a list flag at each comma not escaped by
// a backslash; the entries keep their escapes. "" is no entry.
func splitList(s string) []string {
	if s == "" {
		return []string{}
	}
	return splitUnescaped(s, ',')
}

// splitUnescaped splits s at each sep not escaped by a backslash; the
// parts keep their escapes.
func splitUnescaped(s string, sep byte) []string {
	var parts []string
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++ // the next character is literal, sep too
		case sep:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}

// unescape returns s with each backslash dropped and the character after
// it kept as it is; ok is false when a backslash ends s, escaping nothing.
func unescape(s string) (name string, ok bool) {
	if strings.IndexByte(s, '\\') < 0 {
		return s, true
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			if i+1 == len(s) {
				return "", false
			}
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String(), true
}

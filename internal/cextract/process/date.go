package process

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/itchyny/timefmt-go"
)

// dateLayouts are the forms the date processor recognizes when it is given
// no format: ISO 8601 / RFC 3339 and W3C datetime (sitemaps), the RFC 1123
// and RFC 822 forms of HTTP and RSS, and common written dates.
var dateLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05Z0700",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04:05",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04:05",
	"2006-01-02 15:04",
	"2006-01-02",
	"2006-01",
	"2006", // W3C datetime's year alone (a sitemap's <lastmod>2024</lastmod>)
	"2006/01/02",
	time.RFC1123Z,
	time.RFC1123,
	"Mon, 2 Jan 2006 15:04:05 -0700",
	"Mon, 2 Jan 2006 15:04:05 MST",
	"Mon, 02 Jan 2006 15:04 -0700",
	time.RFC850,
	time.ANSIC,
	"2 Jan 2006 15:04:05 -0700",
	"January 2, 2006",
	"Jan 2, 2006",
	"January 2 2006",
	"Jan 2 2006",
	"2 January 2006",
	"2 Jan 2006",
	"02 Jan 2006",
	"Monday, January 2, 2006",
	"Mon, January 2, 2006",
}

// ParseDate reads s in one of the layouts ParseDate knows (see the date
// processor) and returns it in UTC when it carries no zone.
func ParseDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, l := range dateLayouts {
		t, err := time.ParseInLocation(l, s, time.UTC)
		if err != nil {
			continue
		}
		if strings.Contains(l, "MST") {
			// Go reads a zone name it does not know as UTC, and GMT+2
			// as the hours two hours later: the wall clock read is the
			// UTC one.
			return namedZone(t.UTC(), t)
		}
		return t, true
	}
	return time.Time{}, false
}

// rfc822Zones are the zone names RFC 822 (5.1) gives offsets, in hours,
// which the dates of HTTP, mail and RSS are written with. Other names are
// ambiguous (CST is also China's, IST India's, Ireland's and Israel's).
var rfc822Zones = map[string]int{
	"UTC": 0, "GMT": 0,
	"EST": -5, "EDT": -4, "CST": -6, "CDT": -5,
	"MST": -7, "MDT": -6, "PST": -8, "PDT": -7,
}

// namedZone returns the wall clock of wall in the zone that parsed names:
// an RFC 822 zone name's offset, or GMT+h's (whose offset Go has read).
// A zone name that is neither is not a date.
func namedZone(wall, parsed time.Time) (time.Time, bool) {
	if parsed.Location() == time.UTC {
		return parsed, true
	}
	name, offset := parsed.Zone()
	if h, ok := rfc822Zones[name]; ok {
		offset = h * 3600
	} else if !strings.HasPrefix(name, "GMT") || len(name) == 3 {
		return time.Time{}, false
	}
	loc := time.UTC
	if offset != 0 {
		loc = time.FixedZone("", offset)
	}
	return time.Date(wall.Year(), wall.Month(), wall.Day(), wall.Hour(), wall.Minute(), wall.Second(), wall.Nanosecond(), loc), true
}

// writable reports whether t has a year RFC 3339 can write: 0000 to 9999
// (strftime's %Y reads "-1" as the year -1).
func writable(t time.Time) bool { return t.Year() >= 0 && t.Year() <= 9999 }

// FormatDate writes t as RFC 3339 (seconds, fractions only when present).
func FormatDate(t time.Time) string {
	if t.Location() == time.UTC {
		return t.Format("2006-01-02T15:04:05.999999999Z")
	}
	return t.Format(time.RFC3339Nano)
}

// dateProc parses dates to RFC 3339. Without an argument it knows common
// layouts (ParseDate); with one or a list, they are strftime formats as in
// Python ("%d/%m/%Y", "%B %d, %Y %H:%M").
func dateProc(arg Arg) (func(*Context, Value, []Value) ([]Value, string), error) {
	var formats []string
	switch arg.Kind {
	case NoArg:
	case ScalarArg:
		s, ok := arg.str()
		if !ok || s == "" {
			return nil, fmt.Errorf("date takes a strftime format such as \"%%d/%%m/%%Y\", or a list of them, got %s", arg.describe())
		}
		formats = []string{s}
	case ListArg:
		for _, a := range arg.List {
			s, ok := a.str()
			if !ok || s == "" {
				return nil, fmt.Errorf("date: want strftime formats (strings), got %s", a.describe())
			}
			formats = append(formats, s)
		}
	default:
		return nil, fmt.Errorf("date takes a strftime format or a list of them, got %s", arg.describe())
	}
	for _, f := range formats {
		if !strings.Contains(f, "%") {
			return nil, fmt.Errorf("date: %q has no %% directive: write strftime formats such as \"%%Y-%%m-%%d\"", f)
		}
		if err := checkStrftime(f); err != nil {
			return nil, fmt.Errorf("date: %q cannot be read: %v", f, err)
		}
	}
	return func(_ *Context, v Value, out []Value) ([]Value, string) {
		s := strings.TrimSpace(v.Text)
		if len(formats) == 0 {
			if t, ok := ParseDate(s); ok && writable(t) {
				return append(out, Str(FormatDate(t))), ""
			}
			return out, "date: not a date this processor knows: " + quote(s) + " (give a strftime format)"
		}
		for _, f := range formats {
			if t, err := parseStrftime(s, f); err == nil && writable(t) {
				return append(out, Str(FormatDate(t))), ""
			}
		}
		return out, fmt.Sprintf("date: %s does not match %s", quote(s), strings.Join(formats, " or "))
	}, nil
}

// strftimeProbe is the date checkStrftime writes and reads back: every
// field has two digits, so no directive reads into the next one.
var strftimeProbe = time.Date(2006, 11, 22, 13, 14, 15, 123456000, time.UTC)

// checkStrftime reports a format the date processor could never read a
// date with: an unknown directive (%Q), a stray %, a week number without
// its year. It writes a date with the format and reads it back.
func checkStrftime(format string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	_, err = timefmt.ParseInLocation(timefmt.Format(strftimeProbe, format), format, time.UTC)
	if inner := errors.Unwrap(err); inner != nil {
		err = inner // not "failed to parse … with …"
	}
	return err
}

// parseStrftime is timefmt.ParseInLocation in UTC, with its panics (on
// formats it does not expect) turned into errors.
func parseStrftime(s, format string) (t time.Time, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	t, err = timefmt.ParseInLocation(s, format, time.UTC)
	if err == nil && hasDirective(format, 'Z') && !hasDirective(format, 'z') {
		// %Z reads a zone name as Go does (an unknown one as UTC);
		// timefmt keeps the wall clock it read. Seconds since the
		// epoch (%s) are the instant, which the name only gives its
		// offset.
		name, _ := t.Zone()
		read := t
		var ok bool
		if t, ok = namedZone(t, t); !ok {
			return time.Time{}, fmt.Errorf("unknown time zone %q", name)
		}
		if hasDirective(format, 's') {
			t = read.In(t.Location())
		}
	}
	return t, err
}

// hasDirective reports whether the strftime format has the directive %c
// (not a literal "%%c").
func hasDirective(format string, c byte) bool {
	for i := 0; i+1 < len(format); i++ {
		if format[i] == '%' {
			if format[i+1] == c {
				return true
			}
			i++
		}
	}
	return false
}

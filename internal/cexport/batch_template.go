package cexport

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// batchTemplate is an -o file name with Scrapy's batch placeholders:
// %(batch_id)d, with printf flags and width (%(batch_id)05d), and
// %(batch_time)s; %% is a percent sign. Placeholders may only be in the
// file's base name, not in its directory.
type batchTemplate struct {
	parts   []templatePart
	hasID   bool
	hasTime bool
	// re matches the base names the template makes; its first group is
	// the batch id when hasID.
	re *regexp.Regexp
}

// templatePart is a literal, or a placeholder with its Go format verb.
type templatePart struct {
	lit  string
	name string // "batch_id", "batch_time" or "" for a literal
	verb string // for batch_id: "%05d"
}

// batchTimeLayout is Scrapy's %(batch_time)s: the batch's start in UTC,
// isoformat() with the colons replaced by dashes.
const batchTimeLayout = "2006-01-02T15-04-05.000000+00-00"

// parseBatchTemplate parses an -o file name with batch placeholders. It
// needs at least one of %(batch_id)d and %(batch_time)s (as Scrapy does),
// or every batch would have the same name.
func parseBatchTemplate(s string) (*batchTemplate, error) {
	if !utf8.ValidString(s) {
		return nil, errors.New("the file name is not valid UTF-8")
	}
	t := &batchTemplate{}
	var lit strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			lit.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '%' {
			lit.WriteByte('%')
			i++
			continue
		}
		if i+1 >= len(s) || s[i+1] != '(' {
			return nil, fmt.Errorf("a %% at byte %d that starts no placeholder (%%(batch_id)d, %%(batch_time)s; %%%% is a percent sign)", i)
		}
		end := strings.IndexByte(s[i:], ')')
		if end < 0 {
			return nil, fmt.Errorf("%q: placeholder not closed with )", s[i:])
		}
		name := s[i+2 : i+end]
		j := i + end + 1
		k := j
		for k < len(s) && strings.IndexByte("0-+ #", s[k]) >= 0 {
			k++
		}
		flags := s[j:k]
		w := k
		for w < len(s) && s[w] >= '0' && s[w] <= '9' {
			w++
		}
		width := s[k:w]
		if w >= len(s) {
			return nil, fmt.Errorf("%q: placeholder without a conversion (d for batch_id, s for batch_time)", s[i:])
		}
		conv := s[w]
		if lit.Len() > 0 {
			t.parts = append(t.parts, templatePart{lit: lit.String()})
			lit.Reset()
		}
		switch name {
		case "batch_id":
			if conv != 'd' && conv != 'i' {
				return nil, fmt.Errorf("%%(batch_id)%s%s%c: batch_id is a number: use d, as in %%(batch_id)05d", flags, width, conv)
			}
			if len(width) > 2 {
				return nil, fmt.Errorf("%%(batch_id)%s%s%c: width %s is too wide (at most 99)", flags, width, conv, width)
			}
			if t.hasID {
				return nil, fmt.Errorf("%%(batch_id) given twice")
			}
			t.hasID = true
			t.parts = append(t.parts, templatePart{name: name, verb: "%" + strings.ReplaceAll(flags, "#", "") + width + "d"})
		case "batch_time":
			if conv != 's' || flags != "" || width != "" {
				return nil, fmt.Errorf("%%(batch_time)%s%s%c: write it %%(batch_time)s", flags, width, conv)
			}
			t.hasTime = true
			t.parts = append(t.parts, templatePart{name: name})
		default:
			return nil, fmt.Errorf("%%(%s): unknown placeholder (batches know %%(batch_id)d and %%(batch_time)s; name files with the shell: -o \"items-$(date +%%F)-%%(batch_id)d.csv\")", name)
		}
		i = w
	}
	if lit.Len() > 0 {
		t.parts = append(t.parts, templatePart{lit: lit.String()})
	}
	if !t.hasID && !t.hasTime {
		return nil, fmt.Errorf("no %%(batch_id)d or %%(batch_time)s in the file name: every batch would get the same name (e.g. items-%%(batch_id)05d.csv)")
	}
	if strings.ContainsRune(filepath.Dir(t.sample()), '\x01') {
		return nil, fmt.Errorf("placeholders are only allowed in the file name, not in its directory")
	}
	var re strings.Builder
	re.WriteString("^")
	for i, p := range t.parts {
		switch p.name {
		case "":
			lit := p.lit
			if i == 0 {
				lit = lit[strings.LastIndexByte(lit, '/')+1:]
			}
			re.WriteString(regexp.QuoteMeta(lit))
		case "batch_id":
			re.WriteString(`[ +]*(\d+) *`)
		case "batch_time":
			re.WriteString(`\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{6}\+00-00`)
		}
	}
	re.WriteString("$")
	t.re = regexp.MustCompile(re.String())
	return t, nil
}

// sample is the template with \x01 for each placeholder, to see where
// placeholders are.
func (t *batchTemplate) sample() string {
	var b strings.Builder
	for _, p := range t.parts {
		if p.name == "" {
			b.WriteString(p.lit)
		} else {
			b.WriteByte('\x01')
		}
	}
	return b.String()
}

// name is the file name of batch id started at at.
func (t *batchTemplate) name(id int, at time.Time) string {
	var b strings.Builder
	for _, p := range t.parts {
		switch p.name {
		case "":
			b.WriteString(p.lit)
		case "batch_id":
			fmt.Fprintf(&b, p.verb, id)
		case "batch_time":
			b.WriteString(at.UTC().Format(batchTimeLayout))
		}
	}
	return b.String()
}

// dir is the directory the batch files are in.
func (t *batchTemplate) dir() string { return filepath.Dir(t.sample()) }

// match reports whether base (a file name without directory) is one the
// template makes, and its batch id (0 without %(batch_id)d).
func (t *batchTemplate) match(base string) (id int, ok bool) {
	m := t.re.FindStringSubmatch(base)
	if m == nil {
		return 0, false
	}
	if !t.hasID {
		return 0, true
	}
	id, err := strconv.Atoi(m[1])
	if err != nil {
		return 0, false
	}
	return id, true
}

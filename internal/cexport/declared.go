package cexport

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/crawlutils/crawlutils/internal/cextract/rules"
)

// The fields a rules file declares (--rules): the header of a table export
// holds them all from the start, as Scrapy's FEED_EXPORT_FIELDS does, so a
// field the first item lacks is not left out of the whole file.

// declared is what a rules file says of the fields of the items that reach
// the export.
type declared struct {
	// file names the rules file, for messages.
	file string
	// columns are the declared fields, in the rules' order: each item
	// rule's fields in turn, a name once.
	columns []string
	// open names an item rule whose items may have fields the rules do not
	// name (a CSV rule without fields or headers: the feed's columns), or
	// is "" when the rules name every field.
	open string
	// rules are the names of every item rule of the file; reached says
	// whether one of them passes --type.
	rules   []string
	reached bool
}

// unreached is the warning when no item rule passes --type, else "".
func (d *declared) unreached(types []string) string {
	if d.reached || len(types) == 0 {
		return ""
	}
	return fmt.Sprintf("--type %s: %s has no item rule of this name (its item rules: %s); the header is the first item's fields",
		strings.Join(types, ","), d.file, strings.Join(d.rules, ", "))
}

// readDeclared reads the rules file name and returns the fields of the
// item rules whose items the --type list lets through (all when it is
// empty); with flatten, as --flatten names them.
func readDeclared(name string, types []string, flatten bool) (*declared, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("--rules %s: %v", name, err)
	}
	f, err := rules.Parse(name, data)
	if err != nil {
		var es rules.Errors
		if errors.As(err, &es) && len(es) > 0 {
			err = es[0]
		}
		return nil, fmt.Errorf("--rules %s: not a valid rules file (cextract --check %s shows every problem): %v", name, name, err)
	}
	d := declaredFields(f, types, flatten)
	d.file = name
	return d, nil
}

// declaredFields returns the fields the item rules of f declare (see
// readDeclared).
func declaredFields(f *rules.File, types []string, flatten bool) *declared {
	d := &declared{}
	seen := map[string]bool{}
	add := func(name string) {
		if !seen[name] {
			seen[name] = true
			d.columns = append(d.columns, name)
		}
	}
	for _, r := range f.Items {
		d.rules = append(d.rules, r.Name)
		if len(types) > 0 && !slices.Contains(types, r.Name) {
			continue
		}
		d.reached = true
		switch {
		case len(r.Fields) > 0:
			for _, fl := range r.Fields {
				if !addField(add, "", fl, r.Match.Type, flatten) && d.open == "" {
					d.open = r.Name
				}
			}
			if len(r.Files) > 0 {
				add(rules.FilesField) // cextract --files-dir adds them: a list of objects, one cell
			}
		case r.CSV != nil && r.CSV.Headers != nil:
			for _, h := range r.CSV.Headers {
				add(h)
			}
		default:
			// The whole row of a CSV feed: its columns are the feed's.
			if d.open == "" {
				d.open = r.Name
			}
		}
	}
	return d
}

// addField adds the column(s) of the field fl, its name after prefix. With
// flatten a nested object (fields without each) is its fields, named with
// dots; it returns false for a field whose value may be an object the rules
// do not describe, which --flatten would make columns the rules do not
// name (a jq selector or the json processor, one value).
func addField(add func(string), prefix string, fl *rules.Field, format rules.Format, flatten bool) bool {
	name := prefix + fl.Name
	if !flatten || fl.All {
		add(name)
		return true
	}
	if fl.Fields != nil && fl.Each == nil {
		known := true
		for _, sub := range fl.Fields {
			known = addField(add, name+".", sub, format, flatten) && known
		}
		return known
	}
	add(name)
	if fl.Fields != nil {
		return true // a list of objects: one JSON cell
	}
	if fl.Source != nil && (fl.Source.Lang == rules.JQ || fl.Source.Lang == rules.Auto && format == rules.JSON) {
		return false
	}
	for _, p := range fl.Process {
		if p.Name() == "json" {
			return false
		}
	}
	return true
}

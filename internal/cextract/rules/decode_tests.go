package rules

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Test is a contract of the rules file (Scrapy's spider contracts, run by
// scrapy check): a stored page and what the rules must make of it.
type Test struct {
	Pos
	Name  string
	Page  String // the response record file, relative to the rules file ("" when only URL is given)
	URL   String // fetched once into Page when Page is not there
	Items []*ExpectItems
	Links *ExpectLinks
}

// Count is an expected number: exactly Exact, or between Min and Max.
type Count struct {
	Pos
	Exact, Min, Max *int
}

// Given reports whether any bound is set.
func (c Count) Given() bool { return c.Exact != nil || c.Min != nil || c.Max != nil }

// Check reports, when n does not fit, what was wanted ("1", "at least 2").
func (c Count) Check(n int) (want string, ok bool) {
	switch {
	case c.Exact != nil && n != *c.Exact:
		return strconv.Itoa(*c.Exact), false
	case c.Min != nil && c.Max != nil && (n < *c.Min || n > *c.Max):
		return fmt.Sprintf("%d to %d", *c.Min, *c.Max), false
	case c.Min != nil && n < *c.Min:
		return fmt.Sprintf("at least %d", *c.Min), false
	case c.Max != nil && n > *c.Max:
		return fmt.Sprintf("at most %d", *c.Max), false
	}
	return "", true
}

// ExpectItems is what a test expects of the items of one type (or all).
type ExpectItems struct {
	Pos
	Type   string // the item rule; "" any
	Count  Count
	Fields []String // present in every item
	Values []Values // the first items' fields, in order: exact values
}

// Values are expected field values: field name to its JSON value.
type Values struct {
	Pos
	Fields []ExpectValue
}

// ExpectValue is one field's expected value, as JSON.
type ExpectValue struct {
	Pos
	Name string
	JSON json.RawMessage
}

// ExpectLinks is what a test expects of the follow-up requests.
type ExpectLinks struct {
	Pos
	Count Count
	URLs  []String // each among the follow-ups
}

func init() {
	Keys["test"] = []string{"name", "page", "url", "items", "links"}
	Keys["test_items"] = []string{"type", "count", "min", "max", "fields", "values"}
	Keys["test_links"] = []string{"count", "min", "max", "urls"}
}

// tests reads the tests: key.
func (d *decoder) tests(n *node) []*Test {
	var out []*Test
	seen := map[string]int{}
	for i, it := range d.list(n, "tests") {
		t := d.test(it, i)
		if t == nil {
			continue
		}
		if line, dup := seen[t.Name]; dup {
			d.errorf(t.Pos, "test %q is defined twice (first at line %d)", t.Name, line)
		}
		seen[t.Name] = t.Line
		out = append(out, t)
	}
	return out
}

func (d *decoder) test(n *node, i int) *Test {
	t := &Test{Pos: n.Pos}
	what := fmt.Sprintf("test %d", i+1)
	if j := n.index("name"); n.kind == mapNode && j >= 0 && n.vals[j].kind == scalarNode && n.vals[j].tag != nullTag {
		what = fmt.Sprintf("test %q", n.vals[j].src)
	}
	ok := d.fields(n, "test", what, func(key string, v *node) {
		switch key {
		case "name":
			if s, ok := d.str(v, what+": name"); ok {
				t.Name = s.Value
			}
		case "page":
			t.Page, _ = d.str(v, what+": page")
		case "url":
			t.URL, _ = d.str(v, what+": url")
		case "items":
			if v.kind == seqNode {
				for _, it := range v.items {
					if e := d.expectItems(it, what); e != nil {
						t.Items = append(t.Items, e)
					}
				}
			} else if e := d.expectItems(v, what); e != nil {
				t.Items = append(t.Items, e)
			}
		case "links":
			t.Links = d.expectLinks(v, what)
		}
	})
	if !ok {
		return nil
	}
	if t.Name == "" {
		d.errorf(n.Pos, "%s: needs a name", what)
	}
	if t.Page.Value == "" && t.URL.Value == "" {
		d.errorf(n.Pos, "%s: needs a page (a response record file) or a url (fetched once and kept)", what)
	}
	if len(t.Items) == 0 && t.Links == nil {
		d.errorf(n.Pos, "%s: expects nothing: give items, links or both", what)
	}
	return t
}

// count reads count, min and max into c.
func (d *decoder) count(c *Count, key string, v *node, what string) {
	n, ok := d.integer(v, what+": "+key)
	if !ok {
		return
	}
	if n < 0 {
		d.errorf(v.Pos, "%s: %s: want 0 or more, got %d", what, key, n)
		return
	}
	if c.Pos.Line == 0 {
		c.Pos = v.Pos
	}
	switch key {
	case "count":
		c.Exact = &n
	case "min":
		c.Min = &n
	case "max":
		c.Max = &n
	}
}

func (d *decoder) checkCount(c Count, what string) {
	if c.Exact != nil && (c.Min != nil || c.Max != nil) {
		d.errorf(c.Pos, "%s: give count, or min and max, not both", what)
	}
	if c.Min != nil && c.Max != nil && *c.Min > *c.Max {
		d.errorf(c.Pos, "%s: min %d is more than max %d", what, *c.Min, *c.Max)
	}
}

func (d *decoder) expectItems(n *node, test string) *ExpectItems {
	e := &ExpectItems{Pos: n.Pos}
	what := test + ": items"
	ok := d.fields(n, "test_items", what, func(key string, v *node) {
		switch key {
		case "type":
			if s, ok := d.str(v, what+": type"); ok {
				e.Type = s.Value
			}
		case "count", "min", "max":
			d.count(&e.Count, key, v, what)
		case "fields":
			e.Fields = d.strings(v, what+": fields")
		case "values":
			list := []*node{v}
			if v.kind == seqNode {
				list = v.items
			}
			for _, it := range list {
				if it.kind != mapNode {
					d.errorf(it.Pos, "%s: values: want a mapping of field: value (or a list of them, one per item), got %s", what, it.describe())
					continue
				}
				vs := Values{Pos: it.Pos}
				for j, k := range it.keys {
					b, _ := json.Marshal(toJSON(it.vals[j]))
					vs.Fields = append(vs.Fields, ExpectValue{Pos: k.Pos, Name: k.text, JSON: b})
				}
				e.Values = append(e.Values, vs)
			}
		}
	})
	if !ok {
		return nil
	}
	d.checkCount(e.Count, what)
	return e
}

func (d *decoder) expectLinks(n *node, test string) *ExpectLinks {
	e := &ExpectLinks{Pos: n.Pos}
	what := test + ": links"
	ok := d.fields(n, "test_links", what, func(key string, v *node) {
		switch key {
		case "count", "min", "max":
			d.count(&e.Count, key, v, what)
		case "urls":
			e.URLs = d.strings(v, what+": urls")
		}
	})
	if !ok {
		return nil
	}
	d.checkCount(e.Count, what)
	return e
}

// toJSON is n as a value for encoding/json: numbers kept as written.
func toJSON(n *node) any {
	switch n.kind {
	case mapNode:
		m := make(map[string]any, len(n.keys))
		for i, k := range n.keys {
			m[k.text] = toJSON(n.vals[i])
		}
		return m
	case seqNode:
		l := make([]any, len(n.items))
		for i, it := range n.items {
			l[i] = toJSON(it)
		}
		return l
	}
	switch n.tag {
	case intTag, floatTag:
		if isJSONNumber(n.text) {
			return json.Number(n.text)
		}
		if f, err := strconv.ParseFloat(n.text, 64); err == nil {
			return f
		}
	case boolTag:
		return n.text == "true"
	case nullTag:
		return nil
	}
	return n.text
}

package cexport

import (
	"testing"

	"github.com/crawlutils/crawlutils/internal/record"
)

// TestItemDigest: the digest of an item does not depend on the order of
// its fields or white space, nor, with --change-fields, on the change
// fields (the export replaces them); a value that differs changes it. An
// item's own fields of those names count when they are exported as they
// are: a change of its "round" (a bout's, a funding round's) was taken for
// no change, and --changed-only dropped the item.
func TestItemDigest(t *testing.T) {
	fields := func(raw string) []record.Field {
		f, err := record.Fields([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	for _, changeFields := range []bool{false, true} {
		base := itemDigest(fields(`{"url":"u","price":"1.00","tags":["a","b"]}`), changeFields)
		for _, c := range []struct {
			raw  string
			same bool
		}{
			{`{"price":"1.00","url":"u","tags":["a","b"]}`, true},
			{`{"url":"u", "price":"1.00", "tags":[ "a", "b" ]}`, true},
			{`{"url":"u","price":"1.00","tags":["a","b"],"first_seen":"x","changed_at":"y"}`, changeFields},
			{`{"url":"u","price":"1.00","tags":["a","b"],"round":2}`, changeFields},
			{`{"url":"u","price":"1.01","tags":["a","b"]}`, false},
			{`{"url":"u","price":1.00,"tags":["a","b"]}`, false},
			{`{"url":"u","price":"1.00","tags":["b","a"]}`, false},
			{`{"url":"u","price":"1.00"}`, false},
			{`{"url":"u","price":"1.00","tags":["a","b"],"new":null}`, false},
		} {
			if got := itemDigest(fields(c.raw), changeFields) == base; got != c.same {
				t.Errorf("--change-fields %v: %s: same digest %v, want %v", changeFields, c.raw, got, c.same)
			}
		}
	}
}

// TestItemKey: the key is the key fields' values, compacted; an item
// without one is an error naming it.
func TestItemKey(t *testing.T) {
	f, _ := record.Fields([]byte(`{"url":"u","id": 7,"x":{"a": 1}}`))
	for _, c := range []struct {
		key     []string
		want    string
		wantErr bool
	}{
		{[]string{"url"}, `["u"]`, false},
		{[]string{"url", "id"}, `["u",7]`, false},
		{[]string{"x"}, `[{"a":1}]`, false},
		{[]string{"nope"}, "", true},
	} {
		got, err := itemKey(f, c.key)
		if got != c.want || (err != nil) != c.wantErr {
			t.Errorf("itemKey(%v) = %q, %v", c.key, got, err)
		}
	}
}

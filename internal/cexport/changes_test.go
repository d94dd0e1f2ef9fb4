package cexport

import (
	"testing"

	"github.com/crawlutils/crawlutils/internal/record"
)

// TestItemDigest: the digest of an item does not depend on the order of
// its fields, white space, or the change fields; a value that differs
// changes it.
func TestItemDigest(t *testing.T) {
	fields := func(raw string) []record.Field {
		f, err := record.Fields([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	base := itemDigest(fields(`{"url":"u","price":"1.00","tags":["a","b"]}`))
	for _, c := range []struct {
		raw  string
		same bool
	}{
		{`{"price":"1.00","url":"u","tags":["a","b"]}`, true},
		{`{"url":"u", "price":"1.00", "tags":[ "a", "b" ]}`, true},
		{`{"url":"u","price":"1.00","tags":["a","b"],"first_seen":"x","changed_at":"y"}`, true},
		{`{"url":"u","price":"1.01","tags":["a","b"]}`, false},
		{`{"url":"u","price":1.00,"tags":["a","b"]}`, false},
		{`{"url":"u","price":"1.00","tags":["b","a"]}`, false},
		{`{"url":"u","price":"1.00"}`, false},
		{`{"url":"u","price":"1.00","tags":["a","b"],"new":null}`, false},
	} {
		if got := itemDigest(fields(c.raw)) == base; got != c.same {
			t.Errorf("%s: same digest %v, want %v", c.raw, got, c.same)
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

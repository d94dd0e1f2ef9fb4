package cqueue

import (
	"encoding/json"
	"testing"

	"github.com/crawlutils/crawlutils/internal/frontier"
	"github.com/crawlutils/crawlutils/internal/record"
)

func TestRequestBudget(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{`{"url":"https://a.example/"}`, `null`, ""},
		{`{"url":"https://a.example/","max_pages":1000,"max_items":0}`, `{"max_items":"","max_pages":"1000"}`, ""},
		{`{"url":"https://a.example/","max_time":"1h30m0s","max_idle":90}`, `{"max_idle":"1m30s","max_time":"1h30m"}`, ""},
		{`{"url":"https://a.example/","max_time":1.5}`, `{"max_time":"1.5s"}`, ""},
		{`{"url":"https://a.example/","max_errors":-1}`, ``, `field "max_errors": want a whole number, 0 or more`},
		{`{"url":"https://a.example/","max_pages":"10"}`, ``, `field "max_pages": want a whole number, 0 or more`},
		{`{"url":"https://a.example/","max_pages":1.5}`, ``, `field "max_pages": want a whole number, 0 or more`},
		{`{"url":"https://a.example/","max_time":"soon"}`, ``, `field "max_time": want a duration such as "1h30m", or seconds`},
		{`{"url":"https://a.example/","max_idle":true}`, ``, `field "max_idle": want a duration such as "1h30m", or seconds`},
	} {
		var req record.Request
		if err := record.Decode([]byte(tc.in), &req); err != nil {
			t.Fatal(err)
		}
		got, err := requestBudget(&req)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%s: error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		b, _ := json.Marshal(got)
		if err != nil || string(b) != tc.want {
			t.Errorf("%s: %s, %v; want %s", tc.in, b, err, tc.want)
		}
	}
}

// TestBudgetNote: an ack counts a page, or an error when its fetch failed
// or it could not be handled; its items count either way.
func TestBudgetNote(t *testing.T) {
	var b budgetCounter
	for _, a := range []record.Ack{
		{Lease: "1", CrawlID: "c", Items: 3},
		{Lease: "2", CrawlID: "c"},
		{Lease: "3", CrawlID: "c", FetchError: "timeout"},
		{Lease: "4", CrawlID: "c", Error: "invalid_record"},
		{Lease: "5", CrawlID: "d", Items: 2},
		{Lease: "6", CrawlID: "d", Items: -4}, // nonsense: no items
	} {
		b.note(a)
	}
	if c := *b.counts["c"]; c != (frontier.CrawlCounts{Pages: 2, Items: 3, Errors: 2}) {
		t.Errorf("crawl c: %+v", c)
	}
	if d := *b.counts["d"]; d != (frontier.CrawlCounts{Pages: 2, Items: 2}) {
		t.Errorf("crawl d: %+v", d)
	}
}

// FuzzBudgetValue: a budget field either is refused or reads as a limit
// the frontier reads back the same (BudgetOf keeps it).
func FuzzBudgetValue(f *testing.F) {
	for _, s := range []string{`1000`, `0`, `-1`, `1.5`, `"1h30m"`, `"soon"`, `1e300`, `"-5s"`, `null`, `[]`} {
		f.Add(frontier.MetaMaxPages, s)
		f.Add(frontier.MetaMaxTime, s)
	}
	f.Fuzz(func(t *testing.T, key, raw string) {
		if !json.Valid([]byte(raw)) {
			return
		}
		v, err := budgetValue(key, json.RawMessage(raw))
		if err != nil || v == "" {
			return
		}
		if k := key; k == frontier.MetaMaxPages || k == frontier.MetaMaxItems || k == frontier.MetaMaxErrors || k == frontier.MetaMaxTime || k == frontier.MetaMaxIdle {
			if frontier.BudgetOf(map[string]string{k: v}).IsZero() {
				t.Errorf("budgetValue(%q, %s) = %q, which BudgetOf does not read", k, raw, v)
			}
		}
	})
}

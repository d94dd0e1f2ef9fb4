package csvfeed

import (
	"fmt"
	"slices"
	"testing"
)

func TestNames(t *testing.T) {
	tests := []struct {
		name    string
		header  []string
		want    []string
		renamed string // each Renamed as column:header>name (first column of a repeat in brackets)
	}{
		{"distinct headers are kept", []string{"sku", "qty", "Qty", " qty"}, []string{"sku", "qty", "Qty", " qty"}, ""},
		{"none", nil, []string{}, ""},
		{"a repeat gets _2", []string{"sku", "qty", "qty"}, []string{"sku", "qty", "qty_2"}, `3:"qty"[2]>qty_2`},
		{"repeats count on", []string{"a", "a", "a", "a"}, []string{"a", "a_2", "a_3", "a_4"}, `2:"a"[1]>a_2 3:"a"[1]>a_3 4:"a"[1]>a_4`},
		{"a suffix another column has is skipped", []string{"qty", "qty", "qty_2"}, []string{"qty", "qty_3", "qty_2"}, `2:"qty"[1]>qty_3`},
		{"and one a repeat took", []string{"qty", "qty_2", "qty", "qty_2"}, []string{"qty", "qty_2", "qty_3", "qty_2_2"}, `3:"qty"[1]>qty_3 4:"qty_2"[2]>qty_2_2`},
		{"an empty header is named by its position", []string{"sku", "qty", "", "qty"}, []string{"sku", "qty", "column_3", "qty_2"}, `3:""[0]>column_3 4:"qty"[2]>qty_2`},
		{"blank is empty", []string{" ", "\t", "x"}, []string{"column_1", "column_2", "x"}, `1:" "[0]>column_1 2:"\t"[0]>column_2`},
		{"a position name another column has", []string{"", "column_1", "column_1_2"}, []string{"column_1_3", "column_1", "column_1_2"}, `1:""[0]>column_1_3`},
		{"a header like a position name repeated", []string{"column_2", ""}, []string{"column_2", "column_2_2"}, `2:""[0]>column_2_2`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			names, renamed := Names(tt.header)
			if !slices.Equal(names, tt.want) {
				t.Errorf("names %q, want %q", names, tt.want)
			}
			got := ""
			for i, r := range renamed {
				if i > 0 {
					got += " "
				}
				got += fmt.Sprintf("%d:%q[%d]>%s", r.Column, r.Header, r.First, r.Name)
			}
			if got != tt.renamed {
				t.Errorf("renamed %s, want %s", got, tt.renamed)
			}
		})
	}
}

// FuzzNames: whatever the header, the names are as many, distinct and not
// blank; a header cell first seen is its name, and only the others are
// reported, each once.
func FuzzNames(f *testing.F) {
	f.Add("sku;qty;;qty")
	f.Add("a;a;a_2;;column_4; ")
	f.Fuzz(func(t *testing.T, row string) {
		header := Parse(row, ';', '"')
		if len(header) == 0 {
			return
		}
		names, renamed := Names(header[0])
		if len(names) != len(header[0]) {
			t.Fatalf("%d names for %d columns", len(names), len(header[0]))
		}
		seen := map[string]bool{}
		kept := 0
		for i, n := range names {
			if seen[n] || blank(n) {
				t.Fatalf("names %q: %q twice or blank", names, n)
			}
			seen[n] = true
			if n == header[0][i] {
				kept++
			}
		}
		if kept+len(renamed) != len(names) {
			t.Fatalf("names %q of %q: %d kept, %d renamed", names, header[0], kept, len(renamed))
		}
	})
}

package csvfeed

import (
	"strconv"
	"strings"
)

// Renamed is a column whose header cell could not be its name as it is:
// a header an earlier column already has, or a blank one.
type Renamed struct {
	Column int    // the column, 1-based
	Header string // its header cell as written
	First  int    // the earlier column with the same header (1-based); 0 for a blank header
	Name   string // the name it is given
}

// Names returns the names of the columns of a feed whose header row is
// header, each once, none blank, and the columns renamed to make them so:
//
//   - a header cell is its column's name, as it is;
//   - a cell that repeats an earlier one gets the first suffix _2, _3, …
//     that makes a name no other column has (qty, qty_2; with a column
//     already called qty_2, the repeat is qty_3);
//   - a blank cell (empty, or only white space) is named after the
//     column's position, column_N, 1-based (column_3), suffixed in the
//     same way if a column already has that name.
//
// A header cell is never renamed to make room for another: a repeat's new
// name avoids every name of the row, including those of later columns.
func Names(header []string) (names []string, renamed []Renamed) {
	taken := make(map[string]bool, len(header))
	for _, h := range header {
		if !blank(h) {
			taken[h] = true
		}
	}
	first := make(map[string]int, len(header)) // header to its first column
	next := map[string]int{}                   // base to the next suffix to try
	unique := func(base string) string {
		k := max(next[base], 2)
		for taken[base+"_"+strconv.Itoa(k)] {
			k++
		}
		next[base] = k + 1
		name := base + "_" + strconv.Itoa(k)
		taken[name] = true
		return name
	}
	names = make([]string, len(header))
	for i, h := range header {
		col := i + 1
		switch prev, seen := first[h]; {
		case blank(h):
			name := "column_" + strconv.Itoa(col)
			if taken[name] {
				name = unique(name)
			}
			taken[name] = true
			names[i] = name
			renamed = append(renamed, Renamed{Column: col, Header: h, Name: name})
		case seen:
			names[i] = unique(h)
			renamed = append(renamed, Renamed{Column: col, Header: h, First: prev, Name: names[i]})
		default:
			first[h] = col
			names[i] = h
		}
	}
	return names, renamed
}

func blank(s string) bool { return strings.TrimSpace(s) == "" }

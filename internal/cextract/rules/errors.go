package rules

import (
	"fmt"
	"slices"
	"strings"
)

// Pos is a position in the rules file, 1-based.
type Pos struct{ Line, Col int }

// Error is one problem in a rules file.
type Error struct {
	File string
	Pos
	Msg string
}

func (e *Error) Error() string {
	if e.File == "" {
		return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// Errors is every problem found in a rules file, in file order.
type Errors []*Error

func (es Errors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// Errorf returns an Error at pos of file.
func Errorf(file string, pos Pos, format string, a ...any) *Error {
	return &Error{File: file, Pos: pos, Msg: fmt.Sprintf(format, a...)}
}

// Merge returns the errors of lists in file order (by line, then column;
// the same position keeps the order given), each message once.
func Merge(lists ...Errors) Errors {
	var out Errors
	for _, es := range lists {
		for _, e := range es {
			if !slices.ContainsFunc(out, func(o *Error) bool { return *o == *e }) {
				out = append(out, e)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b *Error) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Col - b.Col
	})
	return out
}

package cqueue

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

func seedsName(s string) string {
	if s == "-" {
		return "<stdin>"
	}
	return s
}

func outName(out string) string {
	if out == "-" {
		return "stdout"
	}
	return out
}

// describeOpen shortens the error of a file that cannot be read.
func describeOpen(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || r == '/' || r == ':' || r == '@' || r == ',' || r == '+' || r == '=' ||
			r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

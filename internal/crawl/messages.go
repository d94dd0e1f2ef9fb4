package crawl

import (
	"errors"
	"fmt"
	"io/fs"
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

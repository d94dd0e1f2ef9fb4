package crawl

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
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

// exportExists reports whether OUT is a file that already holds
// something (a database table or stdout is not looked at).
func exportExists(out string) bool {
	if out == "-" || dbOutTable(out) != "" {
		return false
	}
	fi, err := os.Stat(out)
	return err == nil && fi.Mode().IsRegular() && fi.Size() > 0
}

// describeOpen shortens the error of a file that cannot be read.
func describeOpen(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}

//go:build unix

package storage

import (
	"errors"
	"fmt"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// whyNotWritable adds to err, the error of opening the database at path,
// why SQLite could not open it when the cause is its directory: SQLite
// creates PATH-wal and PATH-shm beside the file (WAL mode), for reading
// it too, so a database on a read-only file system, or in a directory
// this user cannot write, cannot be opened at all, with SQLite's
// "unable to open database file" saying nothing of why.
func whyNotWritable(path string, err error) error {
	var de *describedError
	if !errors.As(err, &de) || de.sentinel != nil {
		return err
	}
	dir := filepath.Dir(path)
	var why string
	switch aerr := unix.Access(dir, unix.W_OK); {
	case errors.Is(aerr, unix.EROFS):
		why = fmt.Sprintf("%s is on a read-only file system", dir)
	case errors.Is(aerr, unix.EACCES):
		why = fmt.Sprintf("this user cannot write to the directory %s", dir)
	default:
		return err
	}
	base := filepath.Base(path)
	return fmt.Errorf("%w: %s, and SQLite must create %s-wal and %s-shm beside the database (WAL mode), even to read it: copy %s to a directory you can write to and give the copy, or make %s writable",
		err, why, base, base, path, dir)
}

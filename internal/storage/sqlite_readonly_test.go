//go:build unix

package storage

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A database in a directory SQLite cannot create its -wal and -shm files
// in cannot be opened, even to read; the error says why and what to do,
// not only SQLite's "unable to open database file". As root, the
// directory is a read-only tmpfs (skipped where mount is not allowed);
// otherwise a directory without write permission.
func TestOpenDBReadOnlyDirectory(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "q.db")
	want := "this user cannot write to the directory " + dir
	if os.Geteuid() == 0 {
		if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", dir).CombinedOutput(); err != nil {
			t.Skipf("mount a tmpfs: %v: %s", err, out)
		}
		t.Cleanup(func() { exec.Command("umount", dir).Run() })
		want = dir + " is on a read-only file system"
	}
	db, err := OpenDB(ctx, path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "CREATE TABLE t (x)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if os.Geteuid() == 0 {
		if out, err := exec.Command("mount", "-o", "remount,ro", dir).CombinedOutput(); err != nil {
			t.Fatalf("remount read-only: %v: %s", err, out)
		}
	} else {
		os.Chmod(dir, 0o555)
		t.Cleanup(func() { os.Chmod(dir, 0o755) })
	}
	_, err = OpenDB(ctx, path, 0)
	if err == nil {
		t.Fatal("opened")
	}
	for _, s := range []string{"cannot open the database file (", want, "q.db-wal and q.db-shm", "copy " + path + " to a directory you can write to"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error lacks %q: %v", s, err)
		}
	}
}

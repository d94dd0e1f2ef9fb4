package dedupe

import (
	"context"
	"errors"
	"github.com/crawlutils/crawlutils/internal/storage"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenSQLiteErrors: OpenDB's errors, said as the seen-set's.
func TestOpenSQLiteErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.db")
	os.WriteFile(junk, []byte(strings.Repeat("not sqlite ", 500)), 0o644)
	_, err := OpenSQLite(ctx, junk, Options{})
	if !errors.Is(err, storage.ErrNotDatabase) || !strings.HasPrefix(err.Error(), "dedupe: open "+junk+": file is not a database (") {
		t.Errorf("junk file: %v", err)
	}
	if _, err := OpenSQLite(ctx, dir, Options{}); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: %v", err)
	}
	if _, err := OpenSQLite(ctx, filepath.Join(dir, "no", "such", "dir", "x.db"), Options{}); err == nil {
		t.Error("a file in a missing directory opened")
	}
}

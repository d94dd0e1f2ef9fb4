package filestore

import (
	"crypto/md5"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The paths Scrapy's FilesPipeline.file_path gives:
// hashlib.sha1(url).hexdigest() and the extension.
func TestPath(t *testing.T) {
	tests := []struct{ url, want string }{
		{"https://example.com/a.jpg", "full/c8cad51b5df249ba44e3873ead2cc484c7dee5bc.jpg"},
		{"http://books.toscrape.com/media/cache/2c/da/2cdad67c44b002e7ead0cc35693c0e8b.jpg", "full/22823e0c52cac8fe35a2c7d355753481bfda423b.jpg"},
	}
	for _, tt := range tests {
		if got := Path(tt.url); got != tt.want {
			t.Errorf("Path(%q) = %q, want %q", tt.url, got, tt.want)
		}
	}
}

// TestExt: what Python 3.11's Path(url).suffix and mimetypes give, as
// Scrapy's file_path uses them (but .gz, which only a system's mime.types
// adds).
func TestExt(t *testing.T) {
	tests := []struct{ url, want string }{
		{"https://a.test/x/photo.jpg", ".jpg"},
		{"https://a.test/x/photo.jpeg", ".jpeg"},
		{"https://a.test/x/photo.JPG", ".jpg"},
		{"https://a.test/x/scan.TIF", ".tiff"},
		{"https://a.test/x/manual.pdf", ".pdf"},
		{"https://a.test/x/manual.PDF", ".pdf"},
		{"https://a.test/x/logo.svg", ".svg"},
		{"https://a.test/x/pic.webp", ".webp"},
		{"https://a.test/x/photo.jpg?w=200", ""},
		{"https://a.test/x/photo.jpg#top", ""},
		{"https://a.test/x/photo", ""},
		{"https://a.test/x/", ""},
		{"https://a.test/", ""},
		{"https://a.test", ""},
		{"https://a.test/x/archive.tar.gz", ""},
		{"https://a.test/x/data.unknownext", ""},
		{"https://a.test/x/.jpg", ""},
		{"https://a.test/x/photo.", ""},
		{"https://a.test/img.php?id=3.jpg", ".jpg"},
		{"https://a.test/x/manual.pdf/", ".pdf"},
	}
	for _, tt := range tests {
		if got := Ext(tt.url); got != tt.want {
			t.Errorf("Ext(%q) = %q, want %q", tt.url, got, tt.want)
		}
	}
}

func TestWriteThenFreshThenExpired(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	s := &Store{Dir: dir, Expires: 24 * time.Hour, Now: func() time.Time { return now }}
	const u = "https://img.test/media/1.jpg"
	if _, ok := s.Fresh(u); ok {
		t.Fatal("fresh before it was written")
	}
	content := "\xff\xd8\xff fake jpeg"
	f, err := s.Write(u, strings.NewReader(content))
	if err != nil {
		t.Fatal(err)
	}
	sum := md5.Sum([]byte(content))
	want := File{URL: u, Path: Path(u), Checksum: hex.EncodeToString(sum[:]), Status: Downloaded}
	if f != want {
		t.Fatalf("Write = %+v, want %+v", f, want)
	}
	got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
	if err != nil || string(got) != content {
		t.Fatalf("stored %q (%v)", got, err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "full", ".tmp-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	fresh, ok := s.Fresh(u)
	want.Status = UpToDate
	if !ok || fresh != want {
		t.Fatalf("Fresh = %+v %v, want %+v", fresh, ok, want)
	}
	// A day and a second later (FILES_EXPIRES counts from the file's
	// modification time), the file is fetched again.
	now = now.Add(24*time.Hour + time.Second)
	if _, ok := s.Fresh(u); ok {
		t.Error("fresh after it expired")
	}
	// Expires 0: always fetched again.
	s2 := &Store{Dir: dir}
	if _, ok := s2.Fresh(u); ok {
		t.Error("fresh with Expires 0")
	}
}

func TestWriteReplaces(t *testing.T) {
	s := &Store{Dir: t.TempDir(), Expires: time.Hour}
	const u = "https://img.test/a.png"
	if _, err := s.Write(u, strings.NewReader("old")); err != nil {
		t.Fatal(err)
	}
	f, err := s.Write(u, strings.NewReader("new"))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(s.Dir, f.Path))
	if string(got) != "new" {
		t.Errorf("stored %q", got)
	}
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	if err := (&Store{Dir: filepath.Join(dir, "a", "b")}).Check(); err != nil {
		t.Errorf("a directory to make: %v", err)
	}
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	if err := (&Store{Dir: file}).Check(); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("a file as the directory: %v", err)
	}
}

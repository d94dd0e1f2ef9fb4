// Package filestore keeps the files of items on disk as Scrapy's
// FilesPipeline does with a local FILES_STORE: each file at
// full/<SHA-1 of its URL><extension> under the store's directory, so a
// store Scrapy filled is read as it is, and the reverse. A file younger
// than the store's expiry (FILES_EXPIRES) is up to date and not fetched
// again.
//
// A Store is safe for concurrent use by several processes: a file is
// written under a temporary name and renamed into place, so a reader sees
// either no file or the whole of one.
package filestore

import (
	"crypto/md5"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// DefaultExpires is Scrapy's FILES_EXPIRES: 90 days.
const DefaultExpires = 90 * 24 * time.Hour

// Statuses of a File, Scrapy's (downloaded, uptodate) and ours (error:
// Scrapy leaves a failed file out of the item; here it is listed, with
// why).
const (
	Downloaded = "downloaded"
	UpToDate   = "uptodate"
	Error      = "error"
)

// File is one entry of an item's "files": Scrapy's {url, path, checksum,
// status}, or {url, status: "error", error} for a file that could not be
// fetched or stored.
type File struct {
	URL      string `json:"url"`
	Path     string `json:"path,omitempty"`     // relative to the store's directory
	Checksum string `json:"checksum,omitempty"` // MD5 of the content, hex
	Status   string `json:"status"`
	Error    string `json:"error,omitempty"`
}

// Store is a directory of files. Its zero value is not usable: Dir must
// be set.
type Store struct {
	Dir string
	// Expires is how long a stored file stays up to date; 0 or less: a
	// file is always fetched again.
	Expires time.Duration
	// Now is the clock; nil: time.Now.
	Now func() time.Time
}

// Path is where the file of rawURL is stored, relative to the store's
// directory: Scrapy's FilesPipeline.file_path, "full/" + the SHA-1 of the
// URL (as given, in hex) + its extension (Ext).
func Path(rawURL string) string {
	sum := sha1.Sum([]byte(rawURL))
	return "full/" + hex.EncodeToString(sum[:]) + Ext(rawURL)
}

// Ext is the extension of the file of rawURL, as Scrapy's
// FilesPipeline.file_path finds it: the suffix of the URL's last segment,
// the URL taken as a file path, query and all (Python's
// Path(url).suffix: "a.jpg?w=2" has none, "img.php?id=3.jpg" has ".jpg"),
// kept when it is a media type's extension, the canonical one when only
// its lower case is (".JPG" gives ".jpg"), else "". The media types are
// Python's default mimetypes.types_map, a fixed table here: Scrapy also
// reads the system's mime.types, which varies from machine to machine.
func Ext(rawURL string) string {
	name := strings.TrimRight(rawURL, "/")
	name = name[strings.LastIndexByte(name, '/')+1:]
	i := strings.LastIndexByte(name, '.')
	if i <= 0 || i == len(name)-1 {
		return ""
	}
	ext := name[i:]
	if _, ok := mediaTypes[ext]; ok {
		return ext
	}
	if t, ok := mediaTypes[strings.ToLower(ext)]; ok {
		if c, ok := canonicalExt[t]; ok {
			return c
		}
		return strings.ToLower(ext)
	}
	return ""
}

// Fresh returns the entry of rawURL when its file is stored and up to
// date: status UpToDate, with the checksum of its content.
func (s *Store) Fresh(rawURL string) (File, bool) {
	if s.Expires <= 0 {
		return File{}, false
	}
	rel := Path(rawURL)
	full := filepath.Join(s.Dir, filepath.FromSlash(rel))
	fi, err := os.Stat(full)
	if err != nil || !fi.Mode().IsRegular() || s.now().Sub(fi.ModTime()) > s.Expires {
		return File{}, false
	}
	f, err := os.Open(full)
	if err != nil {
		return File{}, false
	}
	defer f.Close()
	h := md5.New()
	if _, err := io.Copy(h, f); err != nil {
		return File{}, false
	}
	return File{URL: rawURL, Path: rel, Checksum: hex.EncodeToString(h.Sum(nil)), Status: UpToDate}, true
}

// Write stores the content r gives as the file of rawURL, replacing the
// one stored, and returns its entry (status Downloaded). The file appears
// whole or not at all, synced to disk first: an item that lists it can
// rely on it.
func (s *Store) Write(rawURL string, r io.Reader) (File, error) {
	rel := Path(rawURL)
	full := filepath.Join(s.Dir, filepath.FromSlash(rel))
	dir := filepath.Dir(full)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return File{}, err
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return File{}, err
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	h := md5.New()
	if _, err := io.Copy(io.MultiWriter(tmp, h), r); err != nil {
		return File{}, err
	}
	if err := tmp.Sync(); err != nil {
		return File{}, err
	}
	if err := tmp.Close(); err != nil {
		return File{}, err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return File{}, err
	}
	if err := os.Rename(tmp.Name(), full); err != nil {
		return File{}, err
	}
	done = true
	return File{URL: rawURL, Path: rel, Checksum: hex.EncodeToString(h.Sum(nil)), Status: Downloaded}, nil
}

// Check reports whether files can be stored in the store's directory: it
// exists or can be made, and is a directory.
func (s *Store) Check() error {
	if s.Dir == "" {
		return errors.New("no directory")
	}
	if err := os.MkdirAll(filepath.Join(s.Dir, "full"), 0o755); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return fmt.Errorf("%s: %v", pe.Path, pe.Err)
		}
		return err
	}
	return nil
}

func (s *Store) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

package cfetch

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// mediaExtensions are the file extensions saved bodies get by media type
// when their URL has none (a fixed table, so names do not depend on the
// machine's mime.types).
var mediaExtensions = map[string]string{
	"image/jpeg": ".jpg", "image/png": ".png", "image/gif": ".gif", "image/webp": ".webp",
	"image/svg+xml": ".svg", "image/avif": ".avif", "image/x-icon": ".ico", "image/vnd.microsoft.icon": ".ico",
	"application/pdf": ".pdf", "application/zip": ".zip", "application/gzip": ".gz",
	"application/x-tar": ".tar", "application/octet-stream": "", "application/msword": ".doc",
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
	"application/vnd.ms-excel": ".xls",
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": ".xlsx",
	"audio/mpeg": ".mp3", "audio/ogg": ".ogg", "video/mp4": ".mp4", "video/webm": ".webm",
	"font/woff": ".woff", "font/woff2": ".woff2", "application/wasm": ".wasm",
}

// saveBody writes a binary body under dir as Scrapy's FilesPipeline lays
// files out — dir/full/<sha1><ext> — but named by the SHA-1 of the content
// rather than of the URL, so that a file's name proves its content and
// the same file found at many URLs is stored once. The extension comes
// from the URL's path when it has a short one, else from the media type.
// The file is written atomically; an existing one is left alone. It
// returns the path, dir joined with "full/<name>".
func saveBody(dir string, data []byte, media, rawURL string) (string, error) {
	sum := sha1.Sum(data)
	name := hex.EncodeToString(sum[:]) + bodyExtension(media, rawURL)
	full := filepath.Join(dir, "full")
	p := filepath.Join(full, name)
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	if err := os.MkdirAll(full, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(full, ".tmp-*")
	if err != nil {
		return "", err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil && !errors.Is(err, fs.ErrNotExist) {
		os.Remove(tmp.Name())
		return "", err
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return p, nil
}

// bodyExtension picks a saved file's extension: the URL path's, when it
// is a dot and 1 to 5 lower-case letters or digits, else the media
// type's, else none.
func bodyExtension(media, rawURL string) string {
	if u, err := url.Parse(rawURL); err == nil {
		ext := strings.ToLower(path.Ext(u.Path))
		if len(ext) >= 2 && len(ext) <= 6 && strings.Trim(ext[1:], "abcdefghijklmnopqrstuvwxyz0123456789") == "" {
			return ext
		}
	}
	return mediaExtensions[media]
}

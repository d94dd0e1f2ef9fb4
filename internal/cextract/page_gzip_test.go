package cextract

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"testing"

	"github.com/crawlutils/crawlutils/internal/cextract/sitemap"
	"github.com/crawlutils/crawlutils/internal/record"
)

// A gzip-compressed body that cannot be read is a skip with its own reason
// (reported on stderr), not "binary": a sitemap over the limit used to
// vanish as a binary page without a word.
func TestGzipBodiesNotReadSayWhy(t *testing.T) {
	var big bytes.Buffer
	zw := gzip.NewWriter(&big)
	zw.Write(bytes.Repeat([]byte(" "), sitemap.MaxSize+1))
	zw.Close()
	for _, c := range []struct {
		name string
		body []byte
		want string
	}{
		{"over_the_limit", big.Bytes(), skippedTooLarge},
		{"corrupt", []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff}, skippedBadGzip},
		{"not_gzip", []byte{0, 1, 2}, "skipped_binary"},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp := &record.Response{Kind: "response", URL: "https://a.example/s.xml.gz", Status: 200, BodyBase64: base64.StdEncoding.EncodeToString(c.body)}
			pg, why := newPage(nil, nil, resp, &record.Request{})
			if pg != nil || why != c.want {
				t.Errorf("newPage: %v, %q; want nil, %q", pg != nil, why, c.want)
			}
		})
	}
}

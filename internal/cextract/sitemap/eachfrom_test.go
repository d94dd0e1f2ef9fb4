package sitemap

import (
	"bytes"
	"compress/gzip"
	"errors"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// EachFrom reads from a reader what Each reads from a string, plain or
// compressed, a byte at a time if need be; the size given decides the
// limit of a plain document before anything is read.
func TestEachFrom(t *testing.T) {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte(urlset))
	zw.Close()
	for _, doc := range []string{urlset, z.String(), `<rss/>`, "not xml <", "\x1f\x8b\x08"} {
		var want, got []Entry
		wkind, werr := Each(doc, func(_ Kind, e Entry) { want = append(want, e) })
		kind, err := EachFrom(iotest.OneByteReader(strings.NewReader(doc)), int64(len(doc)), func(_ Kind, e Entry) { got = append(got, e) })
		if kind != wkind || !reflect.DeepEqual(got, want) || (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
			t.Errorf("%.20q: EachFrom %v %v %v, Each %v %v %v", doc, kind, got, err, wkind, want, werr)
		}
	}
	n := 0
	if _, err := EachFrom(strings.NewReader(urlset), MaxSize+1, func(Kind, Entry) { n++ }); !errors.Is(err, ErrTooLarge) || n != 0 {
		t.Errorf("over MaxSize: %v, %d entries", err, n)
	}
}

package warc

import (
	"slices"
	"testing"
)

// A shell's glob lists shop-00001.warc.gz before shop.warc.gz ('-' sorts
// before '.'): the files of a series are put back in the order they were
// written, other files left where they were given.
func TestSeriesOrder(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{[]string{"shop-00001.warc.gz", "shop-00002.warc.gz", "shop.warc.gz"}, []string{"shop.warc.gz", "shop-00001.warc.gz", "shop-00002.warc.gz"}},
		{[]string{"b.warc", "a-00001.warc.gz", "a.warc.gz", "b-00001.warc"}, []string{"b.warc", "b-00001.warc", "a.warc.gz", "a-00001.warc.gz"}},
		{[]string{"x-00010.warc.gz", "x-00002.warc.gz"}, []string{"x-00002.warc.gz", "x-00010.warc.gz"}},
		{[]string{"other.warc.gz", "wget-00000.warc.gz", "dir/c.gz", "dir/c-00001.gz"}, []string{"other.warc.gz", "wget-00000.warc.gz", "dir/c.gz", "dir/c-00001.gz"}},
		{[]string{"z.warc.gz", "z.warc.gz"}, []string{"z.warc.gz", "z.warc.gz"}},
	} {
		if got := SeriesOrder(c.in); !slices.Equal(got, c.want) {
			t.Errorf("SeriesOrder(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

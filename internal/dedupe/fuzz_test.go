package dedupe

import (
	"bytes"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// FuzzReadSeenFile: ReadSeenFile never panics, and what it reads
// WriteSeenFile writes back as the same fingerprints, normalized.
func FuzzReadSeenFile(f *testing.F) {
	f.Add([]byte(strings.Repeat("ab", 20) + "\n" + strings.Repeat("CD", 20) + "\r\n\n"))
	f.Add([]byte("xyz\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, in []byte) {
		var fps [][20]byte
		if ReadSeenFile(bytes.NewReader(in), func(fp [20]byte) error { fps = append(fps, fp); return nil }) != nil {
			return
		}
		var out bytes.Buffer
		if n, err := WriteSeenFile(&out, slices.Values(fps)); err != nil || n != len(fps) {
			t.Fatalf("WriteSeenFile = %d, %v", n, err)
		}
		var again [][20]byte
		if err := ReadSeenFile(&out, func(fp [20]byte) error { again = append(again, fp); return nil }); err != nil || !slices.Equal(fps, again) {
			t.Fatalf("round trip of %q: %v", in, err)
		}
	})
}

// FuzzRedisURL: reading a Redis URL's options (prefix=, wait=,
// wait_timeout=, shards=) and a cluster URL's seeds never panics, and
// what is accepted is in range: shards 1 to MaxShards, wait and its
// timeout not negative, and the options taken out of the query.
func FuzzRedisURL(f *testing.F) {
	for _, s := range []string{
		"redis+cluster://h1:7000,h2:7001/0?prefix=shop:&shards=12&wait=1&wait_timeout=500ms",
		"redis://127.0.0.1:6379/0?shards=3", "redis+cluster://h1?shards=0", "redis+cluster://[::1]:7000?shards=256",
		"redis+cluster://u:p@h1,,h2", "redis://h/0?wait=-1", "unix:///tmp/r.sock?db=1&shards=2",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		check := func(uo urlOptions) {
			if uo.shards < 1 || uo.shards > MaxShards || uo.rep.replicas < 0 || uo.rep.timeout <= 0 {
				t.Fatalf("%q: options %+v out of range", s, uo)
			}
		}
		if opt, uo, err := parseClusterURL(s); err == nil {
			check(uo)
			if len(opt.Addrs) == 0 {
				t.Fatalf("%q: a cluster without seeds", s)
			}
		}
		if u, err := url.Parse(s); err == nil {
			if uo, err := takeOptions(u); err == nil {
				check(uo)
				q := u.Query()
				for _, o := range []string{"prefix", "wait", "wait_timeout", "shards"} {
					if q.Has(o) {
						t.Fatalf("%q: %s= left in the query %q", s, o, u.RawQuery)
					}
				}
			}
		}
	})
}

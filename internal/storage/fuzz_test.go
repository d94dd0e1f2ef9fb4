package storage

import (
	"net/url"
	"testing"
)

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

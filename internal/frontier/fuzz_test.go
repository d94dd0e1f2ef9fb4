package frontier

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crawlutils/crawlutils/internal/record"
)

// FuzzParseEntry: ParseEntry never panics, and what it accepts has a host,
// a Raw that decodes to a request without a lease, and hands out cleanly.
func FuzzParseEntry(f *testing.F) {
	for _, s := range []string{
		`{"kind":"request","url":"http://a.test/x?b=1&a=2","crawlid":"c","priority":3}`,
		`{"url":"HTTP://User@Ex.COM:80/%7e#f","lease":"1.00","attrs":{"n":1e400}}`,
		`{"url":"http://[::1]:8080/","method":"post","body":"x"}`,
		`{"url":"http://münchen.de/straße"}`,
		`{"url":5}`, `[]`, `{"url":"mailto:x"}`,
		`{"url":"http://a.test/","round":3}`, `{"url":"http://a.test/","round":-1}`,
		`{"url":"http://a.test/","round":"2"}`, `{"url":"http://a.test/","round":1e3}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, mode := range []KeyMode{KeyFast, KeyScrapy} {
			e, err := ParseEntry(raw, mode)
			if err != nil {
				continue
			}
			if e.Host == "" {
				t.Fatalf("entry of %q has no host", raw)
			}
			var r record.Request
			if err := record.Decode(e.Raw, &r); err != nil || r.Lease != "" {
				t.Fatalf("Raw %q: %v, lease %q", e.Raw, err, r.Lease)
			}
			out, err := handout(e.Raw, "1.0000000000000001", 1)
			if err != nil || !strings.Contains(string(out), `"lease":"1.0000000000000001"`) {
				t.Fatalf("handout(%q) = %q, %v", e.Raw, out, err)
			}
		}
	})
}

// FuzzParseLease: parseLease never panics and accepts exactly what
// formatLease writes.
func FuzzParseLease(f *testing.F) {
	for _, s := range []string{"1.0000000000000001", "123.fedcba9876543210", "", "1.", ".1", "-1.0000000000000001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, nonce, ok := parseLease(s)
		if ok && formatLease(id, nonce) != strings.ToLower(s) && formatLease(id, nonce) != s {
			// Accepting an alternative spelling is harmless only if it names
			// the same lease; a leading "+" or zeros would not.
			if _, _, ok2 := parseLease(formatLease(id, nonce)); !ok2 {
				t.Fatalf("parseLease(%q) = %d, %x, but its format does not parse", s, id, nonce)
			}
		}
	})
}

// FuzzShardOfLease: a lease given to a frontier split in three goes to
// the shard it names, with what follows the shard's "i:" as the shard's
// lease, and nothing else passes for a shard's: any other string goes to
// shard 0 marked so that no shard's script can match it.
func FuzzShardOfLease(f *testing.F) {
	for _, s := range []string{"0:1.0000000000000001", "2:123.fedcba9876543210", "3:1.0", "01:1.0", "-1:1.0", ":", "1.0123456789abcdef", ""} {
		f.Add(s)
	}
	s := &Redis{shards: make([]*redisShard, 3)}
	f.Fuzz(func(t *testing.T, l string) {
		i, rest := s.shardOfLease(l)
		named := strconv.Itoa(i)+":"+rest == l // l is "i:" and a lease of shard i
		switch {
		case i < 0 || i >= 3:
			t.Fatalf("shardOfLease(%q) = shard %d of 3", l, i)
		case !named && (i != 0 || rest != "!"+l):
			t.Fatalf("shardOfLease(%q) = %d, %q: neither the shard it names nor shard 0 as !LEASE", l, i, rest)
		}
	})
}

// FuzzParseLock: a run lock's value, as read back from the store, never
// panics the parsers, and a value made by lockValue parses back.
func FuzzParseLock(f *testing.F) {
	for _, s := range []string{"host 12 boot\t1700000000000", "h 1 b", "\t", "a\tb\tc", " 1 \t-5", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, _ := parseLock(s)
		DescribeLockHolder(h)
		LockHolderGone(h)
		if strings.Contains(s, "\t") {
			return
		}
		back, exp := parseLock(lockValue(s, time.Second, time.UnixMilli(0)))
		if back != s || exp != 1000 {
			t.Fatalf("lockValue(%q) parses back as %q, %d", s, back, exp)
		}
	})
}

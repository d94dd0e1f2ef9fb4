package dedupe

import (
	"crypto/sha1"
	"encoding/binary"
	"fmt"

	"github.com/zeebo/xxh3"

	"github.com/crawlutils/crawlutils/internal/fingerprint"
)

// Key is one seen thing. Hash is the storage key; when Scrapy is true,
// SHA1 is Scrapy's request fingerprint and Hash its first 8 bytes.
//
// Group is a locality hint: the SQLite store keeps the keys of one group
// next to each other, so a batch of keys from few groups (the follow-ups of
// a page are mostly on its host) touches few pages of the file instead of
// one per key. It must be a function of what the key identifies (the same
// request always has the same group), because SQLite tells keys apart by
// group and hash; 0 is the group of keys that have none. RequestKey sets it
// to the host's GroupOf for fast keys; Scrapy keys have none, so that a
// requests.seen file (which names no hosts) can be imported.
//
// Host is the host of a request key's URL (RequestKey sets it, for both
// kinds of key): a Redis store split into shards (shards=K) puts the key
// in its host's shard, where the frontier keeps the host's share of a
// crawl's seen set; a key without one goes by its Member. It is not
// stored: Export gives keys without it.
type Key struct {
	Hash   uint64
	SHA1   [20]byte
	Scrapy bool
	Group  uint16
	Host   string
}

// GroupOf is the group of the keys of a host: 16 bits of its XXH3.
func GroupOf(host string) uint16 { return uint16(xxh3.HashString(host) >> 48) }

// HashKey returns the key for a 64-bit hash (fingerprint.Key64).
func HashKey(h uint64) Key { return Key{Hash: h} }

// ScrapyKey returns the key for a Scrapy request fingerprint
// (fingerprint.Scrapy, or a line of a requests.seen file).
func ScrapyKey(fp [20]byte) Key {
	return Key{Hash: binary.BigEndian.Uint64(fp[:8]), SHA1: fp, Scrapy: true}
}

// KeyOf returns the key for arbitrary bytes, such as the value of an item
// field for cdedupe --key (XXH3, 64 bits).
func KeyOf(b []byte) Key { return Key{Hash: xxh3.Hash(b)} }

// String is the key as hex: the SHA-1 for a Scrapy key, else the hash.
func (k Key) String() string {
	if k.Scrapy {
		return fmt.Sprintf("%x", k.SHA1)
	}
	return fmt.Sprintf("%016x", k.Hash)
}

// Member is the key as Redis stores it in a namespace's SET: the 20 SHA-1
// bytes for a Scrapy key, else the 8 big-endian bytes of the hash.
func (k Key) Member() string {
	if k.Scrapy {
		return string(k.SHA1[:])
	}
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], k.Hash)
	return string(b[:])
}

// keyFromMember is the inverse of Member.
func keyFromMember(m string) (Key, error) {
	switch len(m) {
	case 8:
		return HashKey(binary.BigEndian.Uint64([]byte(m))), nil
	case 20:
		var fp [20]byte
		copy(fp[:], m)
		return ScrapyKey(fp), nil
	}
	return Key{}, fmt.Errorf("dedupe: unexpected member of %d bytes in a seen set", len(m))
}

// RequestKey is a request's key for the duplicate filter: Scrapy's
// fingerprint (fingerprint.Scrapy) when scrapy is true, else the fast
// fingerprint.Key64 of the request's canonical URL (fingerprint.Identity:
// Scrapy's, of the URL with its host as cfetch fetches it; so the two
// modes treat the same URLs as equal), in the group of its host; either way with the
// host (Key.Host). The frontier computes the same keys (FastRequestKey).
func RequestKey(method, rawURL, body string, scrapy bool) (Key, error) {
	canon, err := fingerprint.Identity(rawURL)
	if err != nil {
		return Key{}, err
	}
	if scrapy {
		// fingerprint.Scrapy, on the URL canonicalized once.
		k := ScrapyKey(sha1.Sum(fingerprint.ScrapyJSON(method, canon, body)))
		k.Host = fingerprint.Host(canon)
		return k, nil
	}
	return FastRequestKey(method, canon, body), nil
}

// FastRequestKey is RequestKey's fast key for a URL already canonicalized
// (fingerprint.Identity).
func FastRequestKey(method, canon, body string) Key {
	host := fingerprint.Host(canon)
	return Key{Hash: fingerprint.Key64(method, canon, body), Group: GroupOf(host), Host: host}
}

// Package storeurl tells what a store's name is — a Redis URL or the path of
// an SQLite file — and writes it for messages, without linking a database
// driver: package cli reads --db, --redis and --stats-to with it.
package storeurl

import (
	"fmt"
	"strings"
)

// IsRedisURL reports whether dsn names a Redis server (redis://,
// rediss://, unix://) or a Redis Cluster (redis+cluster://,
// rediss+cluster://, see storage.DialRedis) rather than an SQLite file.
func IsRedisURL(dsn string) bool {
	return strings.HasPrefix(dsn, "redis://") || strings.HasPrefix(dsn, "rediss://") || strings.HasPrefix(dsn, "unix://") ||
		IsRedisClusterURL(dsn)
}

// CheckRedisURL returns an error, naming the flag or environment variable
// name, when v is not a Redis URL; it would otherwise be taken for the
// path of an SQLite file.
func CheckRedisURL(name, v string) error {
	if IsRedisURL(v) {
		return nil
	}
	return fmt.Errorf("%s must be a Redis URL: redis://HOST[:PORT][/DB], rediss://…, unix:///PATH, or redis+cluster://HOST:PORT[,HOST:PORT…] for a Redis Cluster (got %q)", name, RedactRedisURL(v))
}

// RedactRedisURL hides the password of a Redis URL (one server or a
// cluster's seed list, which url.Parse cannot read), for messages.
func RedactRedisURL(raw string) string {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return raw
	}
	end := len(rest)
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		end = i
	}
	at := strings.LastIndex(rest[:end], "@")
	if at < 0 {
		return raw
	}
	user, _, hasPass := strings.Cut(rest[:at], ":")
	if !hasPass {
		return raw
	}
	return scheme + "://" + user + ":xxxxx" + rest[at:]
}

// IsRedisClusterURL reports whether dsn names a Redis Cluster
// (redis+cluster:// or rediss+cluster://).
func IsRedisClusterURL(dsn string) bool {
	return strings.HasPrefix(dsn, "redis+cluster://") || strings.HasPrefix(dsn, "rediss+cluster://")
}

// Redact is dsn as a message may show it: a Redis URL's password hidden,
// an SQLite file's path as it is.
func Redact(dsn string) string {
	if !IsRedisURL(dsn) {
		return dsn
	}
	return RedactRedisURL(dsn)
}

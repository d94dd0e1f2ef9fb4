package frontier

import "github.com/crawlutils/crawlutils/internal/dedupe"

// RedactDSN is dsn with a Redis URL's password hidden, for messages.
func RedactDSN(dsn string) string {
	if !dedupe.IsRedisURL(dsn) {
		return dsn
	}
	return dedupe.RedactRedisURL(dsn)
}

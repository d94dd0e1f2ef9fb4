package cli

import (
	"fmt"

	"github.com/crawlutils/crawlutils/internal/storage/storeurl"
)

// StoreDSN picks the shared state every stateful command names the same
// way: --redis URL, else --db FILE, else $CRAWLUTILS_REDIS, else
// $CRAWLUTILS_DB (read with getenv). Both flags at once, or a Redis
// setting that is not a Redis URL, is an error that names it; "" with no
// error when nothing names a store (the command says what it is missing).
func StoreDSN(db, redis string, getenv func(string) string) (string, error) {
	switch {
	case redis != "" && db != "":
		return "", fmt.Errorf("--db and --redis: give one")
	case redis != "":
		return redis, storeurl.CheckRedisURL("--redis", redis)
	case db != "":
		return db, nil
	}
	if v := getenv("CRAWLUTILS_REDIS"); v != "" {
		return v, storeurl.CheckRedisURL("$CRAWLUTILS_REDIS", v)
	}
	return getenv("CRAWLUTILS_DB"), nil
}

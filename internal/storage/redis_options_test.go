package storage

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestRedisURLOptionsChecked: every go-redis option of a Redis URL is
// range-checked before go-redis reads it (a negative pool_size panicked,
// a huge one ran out of memory, a timeout of -1s meant none), and a bad
// URL is a usage error. Port 1 refuses: a URL that passes fails to reach.
func TestRedisURLOptionsChecked(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ url, want string }{
		{"redis://127.0.0.1:1/?pool_size=-5", `pool_size="-5": want a whole number from 1 to 10000`},
		{"redis://127.0.0.1:1/?pool_size=100000000", `pool_size="100000000"`},
		{"redis://127.0.0.1:1/?pool_size=x", `pool_size="x"`},
		{"redis://127.0.0.1:1/-1", "the path /-1: want a db number"},
		{"redis://127.0.0.1:1/x", "the path /x: want a db number"},
		{"redis://127.0.0.1:1/2?db=1", "the path names db 2 and db= names 1"},
		{"redis://127.0.0.1:1/?db=-1", `db="-1"`},
		{"redis://127.0.0.1:1/?dial_timeout=-1s", `dial_timeout="-1s": want a duration from 1ms to 1h0m0s`},
		{"redis://127.0.0.1:1/?dial_timeout=0", `dial_timeout="0"`},
		{"redis://127.0.0.1:1/?read_timeout=99999999999999999999", `read_timeout=`},
		{"redis://127.0.0.1:1/?max_retries=1000", `max_retries="1000"`},
		{"redis://127.0.0.1:1/?pool_fifo=yes", `pool_fifo="yes": want true or false`},
		{"redis://127.0.0.1:1/?pool_size=3&pool_size=4", "pool_size= is given 2 times"},
		{"redis://127.0.0.1:1/?bogus=1", "unknown option bogus="},
		{"redis+cluster://127.0.0.1:1/?pool_size=0", `pool_size="0"`},
		{"redis+cluster://127.0.0.1:1,127.0.0.1:2/?dial_timeout=-1", `dial_timeout="-1"`},
		{"unix:///tmp/none.sock?db=-2", `db="-2"`},
		{"redis://127.0.0.1:1/3?db=3&dial_timeout=2&pool_size=4&pool_fifo=true", ""},
		{"redis://127.0.0.1:1/0?dial_timeout=500ms&read_timeout=3s&max_retries=-1", ""},
		{"redis+cluster://127.0.0.1:1/?max_redirects=3&route_randomly=1", ""},
	} {
		_, err := DialRedis(context.Background(), tc.url)
		var bad *badURLError
		switch {
		case err == nil:
			t.Errorf("%s: no error", tc.url)
		case tc.want == "" && errors.As(err, &bad):
			t.Errorf("%s: refused: %v", tc.url, err)
		case tc.want != "" && (!errors.As(err, &bad) || !bad.UsageError() || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v; want a usage error saying %q", tc.url, err, tc.want)
		}
	}
}

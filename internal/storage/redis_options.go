package storage

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// goRedisOption is the range a go-redis URL option is checked against
// before go-redis reads it: go-redis takes a negative pool_size to
// make(chan) (a panic), a huge one as memory to allocate, and a timeout
// of 0 or less as "no timeout" (a crawl that hangs on a dead server).
type goRedisOption struct {
	kind     byte // 'i' integer, 'd' duration, 'b' boolean, 's' string
	min, max int64
}

const week = int64(7 * 24 * time.Hour)

// goRedisOptions are the go-redis options a Redis URL may carry, with
// their ranges (durations in nanoseconds).
var goRedisOptions = map[string]goRedisOption{
	"db":                         {'i', 0, math.MaxInt32},
	"protocol":                   {'i', 2, 3},
	"client_name":                {kind: 's'},
	"max_retries":                {'i', -1, 100},
	"max_redirects":              {'i', -1, 100},
	"dialer_retries":             {'i', 0, 100},
	"pool_size":                  {'i', 1, 10000},
	"min_idle_conns":             {'i', 0, 10000},
	"max_idle_conns":             {'i', 0, 10000},
	"max_active_conns":           {'i', 0, 10000},
	"max_concurrent_dials":       {'i', 0, 10000},
	"pipeline_pool_size":         {'i', 1, 10000},
	"pipeline_read_buffer_size":  {'i', 1, 64 << 20},
	"pipeline_write_buffer_size": {'i', 1, 64 << 20},
	"failing_timeout_seconds":    {'i', 1, 86400},
	"dial_timeout":               {'d', int64(time.Millisecond), int64(time.Hour)},
	"read_timeout":               {'d', int64(time.Millisecond), int64(time.Hour)},
	"write_timeout":              {'d', int64(time.Millisecond), int64(time.Hour)},
	"pool_timeout":               {'d', int64(time.Millisecond), int64(time.Hour)},
	"dialer_retry_timeout":       {'d', int64(time.Millisecond), int64(time.Hour)},
	"min_retry_backoff":          {'d', int64(time.Millisecond), int64(time.Minute)},
	"max_retry_backoff":          {'d', int64(time.Millisecond), int64(time.Hour)},
	"route_by_latency_tolerance": {'d', int64(time.Millisecond), int64(time.Hour)},
	"conn_max_idle_time":         {'d', int64(time.Second), week},
	"conn_max_lifetime":          {'d', int64(time.Second), week},
	"conn_max_lifetime_jitter":   {'d', 0, week},
	"idle_timeout":               {'d', int64(time.Second), week},
	"max_conn_age":               {'d', int64(time.Second), week},
	"pool_fifo":                  {kind: 'b'},
	"skip_verify":                {kind: 'b'},
	"read_only":                  {kind: 'b'},
	"route_by_latency":           {kind: 'b'},
	"route_randomly":             {kind: 'b'},
	"addr":                       {kind: 's'},
}

// checkGoRedisOptions checks every option of q (ours taken out) against
// goRedisOptions: known, given once, and in range. The errors name the
// option and what it wants.
func checkGoRedisOptions(q url.Values) error {
	names := make([]string, 0, len(q))
	for name := range q {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		o, ok := goRedisOptions[name]
		if !ok {
			return fmt.Errorf("unknown option %s= (the options are prefix, shards, wait, wait_timeout and go-redis's: %s)", name, knownOptions())
		}
		if len(q[name]) > 1 && name != "addr" {
			return fmt.Errorf("%s= is given %d times", name, len(q[name]))
		}
		if err := o.check(name, q.Get(name)); err != nil {
			return err
		}
	}
	return nil
}

func (o goRedisOption) check(name, v string) error {
	switch o.kind {
	case 'i':
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < o.min || n > o.max {
			return fmt.Errorf("%s=%q: want a whole number from %d to %d", name, v, o.min, o.max)
		}
	case 'd':
		d, err := time.ParseDuration(v)
		if err != nil {
			// go-redis also reads a bare number as seconds.
			n, nerr := strconv.ParseInt(v, 10, 64)
			if nerr != nil || n > math.MaxInt64/int64(time.Second) {
				return fmt.Errorf("%s=%q: want a duration such as 5s, from %s to %s", name, v, time.Duration(o.min), time.Duration(o.max))
			}
			d = time.Duration(n) * time.Second
		}
		if int64(d) < o.min || int64(d) > o.max {
			return fmt.Errorf("%s=%q: want a duration from %s to %s", name, v, time.Duration(o.min), time.Duration(o.max))
		}
	case 'b':
		switch v {
		case "true", "false", "1", "0":
		default:
			return fmt.Errorf("%s=%q: want true or false", name, v)
		}
	}
	return nil
}

func knownOptions() string {
	names := make([]string, 0, len(goRedisOptions))
	for name := range goRedisOptions {
		if name != "addr" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// checkDBPath checks the db a redis:// or rediss:// URL's path names
// (/N), and that a db= option does not name another one.
func checkDBPath(path string, q url.Values) error {
	p := strings.Trim(path, "/")
	if p == "" {
		return nil
	}
	n, err := strconv.ParseInt(p, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt32 {
		return fmt.Errorf("the path /%s: want a db number, such as /0", p)
	}
	if q.Has("db") && q.Get("db") != p {
		return fmt.Errorf("the path names db %s and db= names %s: name it once", p, q.Get("db"))
	}
	return nil
}

// badURLError is a Redis URL that cannot be used: a usage error (exit
// status 2) for the commands (UsageError).
type badURLError struct{ msg string }

func (e *badURLError) Error() string { return e.msg }

// UsageError says this error is the user's to fix in the command line or
// its environment.
func (e *badURLError) UsageError() bool { return true }

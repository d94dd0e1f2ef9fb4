package throttle

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
)

// Table gives each key its Rate: an override from a rates file, else the
// default. A Table is read-only once built and safe for concurrent use.
type Table struct {
	Default Rate
	keys    map[string]Rate
	fold    bool
}

// NewTable returns a Table giving every key def.
func NewTable(def Rate) *Table { return &Table{Default: def, keys: map[string]Rate{}} }

// Len is the number of overrides.
func (t *Table) Len() int { return len(t.keys) }

// For returns key's rate: its override; in a table of host keys (see
// ReadTable), for a "host:port" key without one, the override of the host
// alone; else the default. Other keys (--key's values) match exactly:
// "acct:1" does not take the rate of "acct".
func (t *Table) For(key string) Rate {
	if t.fold {
		key = foldKey(key)
	}
	if r, ok := t.keys[key]; ok {
		return r
	}
	if !t.fold {
		return t.Default
	}
	if host, port, err := net.SplitHostPort(key); err == nil && port != "" {
		if r, ok := t.keys[host]; ok {
			return r
		}
		if r, ok := t.keys["["+host+"]"]; ok {
			return r
		}
	}
	return t.Default
}

// ReadTable reads overrides into a Table with default def. Each line is
//
//	KEY RATE [burst=N]
//
// such as "example.com 1/5s" or "api.example.com:8443 10/s burst=5"; RATE
// is read by ParseRate; blank lines and everything after a '#' are
// ignored. The burst of a line without one is def's. With fold, keys are
// hosts, with or without a port, read as HostKey writes a URL's (case,
// an internationalized name, a trailing dot, an IPv6 address with or
// without brackets), and a key no URL's can be (a URL, a wildcard, the
// default port 80 or 443) is an error. Errors name the file and line:
// "rates.txt:3: …".
func ReadTable(r io.Reader, name string, def Rate, fold bool) (*Table, error) {
	t := NewTable(def)
	t.fold = fold
	where := map[string]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for num := 1; sc.Scan(); num++ {
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if len(fields) < 2 || len(fields) > 3 {
			return nil, fmt.Errorf("%s:%d: want KEY RATE [burst=N], such as \"example.com 1/5s\", got %q", name, num, strings.TrimSpace(line))
		}
		key := fields[0]
		if fold {
			var err error
			if key, err = lineHostKey(key); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", name, num, err)
			}
		}
		rate, err := ParseRate(fields[1])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: bad rate %q: %v", name, num, fields[1], err)
		}
		rate.Burst = def.Burst
		if len(fields) == 3 {
			v, ok := strings.CutPrefix(fields[2], "burst=")
			n, err := strconv.Atoi(v)
			if !ok || err != nil {
				return nil, fmt.Errorf("%s:%d: %q: want burst=N after the rate", name, num, fields[2])
			}
			rate.Burst = n
		}
		if err := rate.Valid(); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, num, err)
		}
		if prev, dup := where[key]; dup {
			return nil, fmt.Errorf("%s:%d: %s is already given on line %d", name, num, key, prev)
		}
		where[key] = num
		t.keys[key] = rate
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return t, nil
}

package record

import (
	"fmt"
	"strings"
	"testing"
)

// TestDecodeRefusesOutOfRangeNumbers: a request whose retries, priority,
// depth, maxdepth or expires is negative where that means nothing, or
// absurd, is refused where it is read, with an error naming the field
// (a hostile "retries": -1000000 made cfetch retry one URL without end),
// on the fast path and on encoding/json's alike; the bounds themselves
// are accepted.
func TestDecodeRefusesOutOfRangeNumbers(t *testing.T) {
	tests := []struct {
		member, want string // want "" : accepted
	}{
		{`"retries":-1000000`, `field "retries": must be between 0 and 100, got -1000000`},
		{`"retries":-1`, `field "retries": must be between 0 and 100, got -1`},
		{`"retries":101`, `field "retries": must be between 0 and 100, got 101`},
		{`"retries":100`, ``},
		{`"retries":0`, ``},
		{`"priority":1000000001`, `field "priority": must be between -1000000000 and 1000000000, got 1000000001`},
		{`"priority":-1000000001`, `field "priority": must be between -1000000000 and 1000000000, got -1000000001`},
		{`"priority":-999999999999999999`, `field "priority": must be between -1000000000 and 1000000000, got -999999999999999999`},
		{`"priority":1000000000`, ``},
		{`"priority":-1000000000`, ``},
		{`"depth":-1`, `field "depth": must be between 0 and 1000000, got -1`},
		{`"depth":1000001`, `field "depth": must be between 0 and 1000000, got 1000001`},
		{`"depth":1000000`, ``},
		{`"maxdepth":-3`, `field "maxdepth": must be between 0 and 1000000, got -3`},
		{`"maxdepth":1000000`, ``},
		{`"expires":-1`, `field "expires": must be between 0 and 253402300799, got -1`},
		{`"expires":1767225600000`, `field "expires": must be between 0 and 253402300799, got 1767225600000`},
		{`"expires":253402300799`, ``},
		{`"retries":-0`, ``},
		{`"retries":null`, ``},
		// The fast path leaves these to encoding/json: still refused.
		{`"Retries":-5`, `field "retries": must be between 0 and 100, got -5`},
		{`"retries":1,"retries":-5`, `field "retries": must be between 0 and 100, got -5`},
		{`"expires":9223372036854775807`, `field "expires": must be between 0 and 253402300799, got 9223372036854775807`},
		// Several wrong: the first in the order of the fields' table.
		{`"depth":-1,"retries":-1`, `field "depth": must be between 0 and 1000000, got -1`},
	}
	for _, tt := range tests {
		line := []byte(`{"kind":"request","url":"https://a.example/",` + tt.member + `}`)
		for name, decode := range map[string]func([]byte, any) error{"Decode": Decode, "decodeSlow": decodeSlow} {
			var r Request
			err := decode(line, &r)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("%s(%s): %v, want it accepted", name, line, err)
			case tt.want != "" && (err == nil || err.Error() != tt.want):
				t.Errorf("%s(%s) = %v, want %q", name, line, err, tt.want)
			}
		}
	}
}

// FuzzRequestBounds: whatever the numbers, Decode accepts a request
// exactly when each is within its bounds, and otherwise names the first
// field out of them.
func FuzzRequestBounds(f *testing.F) {
	f.Add(int64(0), int64(0), int64(0), int64(0), int64(0))
	f.Add(int64(-1000000), int64(5), int64(1), int64(3), int64(1767225600))
	f.Add(int64(100), int64(1e9), int64(1e6), int64(1e6), int64(253402300799))
	f.Add(int64(101), int64(-1e9-1), int64(1e6+1), int64(-1), int64(-1))
	f.Add(int64(1<<62), int64(-1<<63), int64(1<<63-1), int64(7), int64(1<<53))
	f.Fuzz(func(t *testing.T, retries, priority, depth, maxdepth, expires int64) {
		line := fmt.Sprintf(`{"url":"u","retries":%d,"priority":%d,"depth":%d,"maxdepth":%d,"expires":%d}`,
			retries, priority, depth, maxdepth, expires)
		want := ""
		for _, c := range []struct {
			name     string
			v        int64
			min, max int64
		}{
			{"priority", priority, MinPriority, MaxPriority},
			{"depth", depth, 0, MaxDepth},
			{"retries", retries, 0, MaxRetries},
			{"maxdepth", maxdepth, 0, MaxDepth},
			{"expires", expires, 0, MaxExpires},
		} {
			if c.v < c.min || c.v > c.max {
				want = fmt.Sprintf("field %q: must be between %d and %d", c.name, c.min, c.max)
				break
			}
		}
		var r Request
		err := Decode([]byte(line), &r)
		if want == "" {
			if err != nil {
				t.Fatalf("Decode(%s): %v", line, err)
			}
			if int64(r.Retries) != retries || int64(r.Priority) != priority || int64(r.Depth) != depth ||
				int64(r.MaxDepth) != maxdepth || r.Expires != expires {
				t.Fatalf("Decode(%s) = %+v", line, r)
			}
			return
		}
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Fatalf("Decode(%s) = %v, want %q…", line, err, want)
		}
	})
}

// TestCheckURL: a request without a url (missing, null, blank) is refused
// with the words every tool reports it in; any other url is the tool's
// to judge.
func TestCheckURL(t *testing.T) {
	for line, want := range map[string]string{
		`{"kind":"request"}`:                 `field "url" is missing or empty`,
		`{"kind":"request","url":null}`:      `field "url" is missing or empty`,
		`{"kind":"request","url":" \t"}`:     `field "url" is missing or empty`,
		`{"URL":""}`:                         `field "url" is missing or empty`,
		`{"url":"https://a.example/"}`:       ``,
		`{"url":"/relative"}`:                ``,
		`{"kind":"request","url":"urn:x:y"}`: ``,
	} {
		var r Request
		if err := Decode([]byte(line), &r); err != nil {
			t.Fatalf("Decode(%s): %v", line, err)
		}
		err := CheckURL(&r)
		if got := fmt.Sprint(err); (want == "" && err != nil) || (want != "" && got != want) {
			t.Errorf("CheckURL(%s) = %v, want %q", line, err, want)
		}
	}
}

package frontier

import (
	"testing"
)

func TestLeaseFormat(t *testing.T) {
	for _, c := range []struct {
		id    int64
		nonce uint64
		want  string
	}{
		{1, 0xabc, "1.0000000000000abc"},
		{1234567, 0xfedcba9876543210, "1234567.fedcba9876543210"},
		{9, 1, "9.0000000000000001"},
	} {
		got := formatLease(c.id, c.nonce)
		if got != c.want {
			t.Errorf("formatLease(%d, %x) = %q, want %q", c.id, c.nonce, got, c.want)
		}
		id, nonce, ok := parseLease(got)
		if !ok || id != c.id || nonce != c.nonce {
			t.Errorf("parseLease(%q) = %d, %x, %v", got, id, nonce, ok)
		}
	}
	for _, bad := range []string{"", "1", "1.", "x.0000000000000001", "0.0000000000000001", "-1.0000000000000001", "1.000000000000001", "1.00000000000000001", "1.zzzzzzzzzzzzzzzz"} {
		if _, _, ok := parseLease(bad); ok {
			t.Errorf("parseLease(%q) accepted", bad)
		}
	}
}

func TestHandout(t *testing.T) {
	for _, c := range []struct {
		raw      string
		lease    string
		expiries int
		want     string
	}{
		{`{"kind":"request","url":"u"}`, "1.00", 0, `{"kind":"request","url":"u","lease":"1.00"}`},
		{`{}`, "1.00", 0, `{"lease":"1.00"}`},
		{`{"kind":"request","url":"u","retries":2}`, "", 1, `{"kind":"request","url":"u","retries":3}`},
		{`{"kind":"request","url":"u","zz":1}`, "7.1", 2, `{"kind":"request","url":"u","retries":2,"zz":1,"lease":"7.1"}`},
	} {
		got, err := handout([]byte(c.raw), c.lease, c.expiries)
		if err != nil || string(got) != c.want {
			t.Errorf("handout(%s, %q, %d) = %s, %v; want %s", c.raw, c.lease, c.expiries, got, err, c.want)
		}
	}
	if _, err := handout([]byte(`[1]`), "x", 0); err == nil {
		t.Error("handout of a non-object succeeded")
	}
}

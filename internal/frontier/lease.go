package frontier

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/crawlutils/crawlutils/internal/percent"
	"github.com/crawlutils/crawlutils/internal/record"
)

// A lease is "ID.NONCE": the entry's id (decimal) and a random 64-bit nonce
// (16 hex digits) drawn for each hand-out, so a lease from an earlier
// hand-out of the same request never matches a later one.

func formatLease(id int64, nonce uint64) string {
	var b [40]byte
	s := strconv.AppendInt(b[:0], id, 10)
	s = append(s, '.')
	for shift := 60; shift >= 0; shift -= 4 {
		s = append(s, percent.LowerHex[nonce>>uint(shift)&15])
	}
	return string(s)
}

func parseLease(l string) (id int64, nonce uint64, ok bool) {
	a, b, found := strings.Cut(l, ".")
	if !found || len(b) != 16 {
		return 0, 0, false
	}
	id, err := strconv.ParseInt(a, 10, 64)
	if err != nil || id <= 0 {
		return 0, 0, false
	}
	nonce, err = strconv.ParseUint(b, 16, 64)
	return id, nonce, err == nil
}

// newNonce draws a lease nonce (never 0, which means "never leased").
func newNonce() uint64 {
	for {
		if n := rand.Uint64(); n != 0 {
			return n
		}
	}
}

// handout returns raw as a popped request: "retries" raised by expiries
// and "lease" set. Raw never holds a lease (NewEntry drops it).
func handout(raw []byte, lease string, expiries int) ([]byte, error) {
	if expiries > 0 {
		var req record.Request
		if err := record.Decode(raw, &req); err != nil {
			return nil, err
		}
		req.Retries = min(req.Retries+expiries, record.MaxRetries)
		enc, err := record.Encode(&req)
		if err != nil {
			return nil, err
		}
		raw = bytes.TrimRight(enc, "\n")
	}
	raw = bytes.TrimRight(raw, " \t\r\n")
	if len(raw) < 2 || raw[len(raw)-1] != '}' {
		return nil, errors.New("stored request is not a JSON object")
	}
	if lease == "" {
		return bytes.Clone(raw), nil
	}
	out := make([]byte, 0, len(raw)+len(lease)+12)
	out = append(out, raw[:len(raw)-1]...)
	if len(bytes.TrimSpace(raw[1:len(raw)-1])) > 0 {
		out = append(out, ',')
	}
	out = append(out, `"lease":"`...)
	out = append(out, lease...)
	return append(out, '"', '}'), nil
}

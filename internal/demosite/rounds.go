package demosite

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// # Rounds: a site that changes between crawls
//
// Options.Round (or SetRound) turns the site into one that changes from one
// round to the next, for testing recrawls. Round 0, the default, is the
// site described above, byte for byte, with no validators. In round r ≥ 1:
//
//   - Validators: every HTML page answered 200 carries "Cache-Control:
//     no-cache" and an ETag (a hash of its body), and answers a request
//     whose If-None-Match matches it with 304 Not Modified, no body; product
//     pages with id%10 == 6 carry a Last-Modified instead (the day of the
//     round their price last changed, from 2026-01-01 for round 1) and
//     answer a request whose If-Modified-Since is not older with 304;
//     product pages with id%10 == 3 carry no validator and always answer
//     in full.
//   - Prices change: in round r ≥ 2 the price of the products with
//     (31·id + 17·r) % 23 == 0 goes up by £1.00 (listing pages show it too).
//   - Products disappear: ids with id%53 == 11 answer 404 from round 2 on,
//     id%53 == 12 from round 3 on (they stay listed, as discontinued ones).
//   - Products appear: ids with id%53 == 40 answer 404 in round 1 and are
//     there from round 2 on; id%53 == 41 from round 3 on.
//
// Truth follows the round. The counters (Stats, Hits, Requests) and the
// one-time failures are not reset by SetRound; PerfectCrawl and Shape
// describe round 0.

// SetRound makes the site the one of round r (0: the classic site) from
// the next request on. Safe to call while the site serves; pages being
// rendered meanwhile may be of either round.
func (s *Site) SetRound(r int) {
	if r < 0 {
		r = 0
	}
	s.round.Store(int64(r))
	s.cache.m.Clear()
}

// Round returns the site's round (see SetRound).
func (s *Site) Round() int { return int(s.round.Load()) }

type roundKey struct{}

// withRound carries the site's round to send with the request.
func withRound(r *http.Request, round int) *http.Request {
	if round == 0 {
		return r
	}
	return r.WithContext(context.WithValue(r.Context(), roundKey{}, round))
}

func roundOf(r *http.Request) int {
	n, _ := r.Context().Value(roundKey{}).(int)
	return n
}

// absentIn reports whether product id answers 404 in round r: it has
// disappeared, or not appeared yet.
func absentIn(id, r int) bool {
	if r < 1 {
		return false
	}
	switch id % 53 {
	case 11:
		return r >= 2
	case 12:
		return r >= 3
	case 40:
		return r < 2
	case 41:
		return r < 3
	}
	return false
}

// priceChangesIn reports whether product id's price goes up in round r.
func priceChangesIn(id, r int) bool { return r >= 2 && (31*id+17*r)%23 == 0 }

// lastPriceChange is the round in which product id's price last changed,
// by round r (1 when it never did).
func lastPriceChange(id, r int) int {
	last := 1
	for k := 2; k <= r; k++ {
		if priceChangesIn(id, k) {
			last = k
		}
	}
	return last
}

// RoundPrice is product id's price in round r, given its round 0 price
// (as shown, "51.77"): £1.00 more for each change up to r.
func RoundPrice(id int, base string, r int) string {
	n := 0
	for k := 2; k <= r; k++ {
		if priceChangesIn(id, k) {
			n++
		}
	}
	if n == 0 {
		return base
	}
	pounds, pence, _ := strings.Cut(base, ".")
	p, err1 := strconv.Atoi(pounds)
	c, err2 := strconv.Atoi(pence)
	if err1 != nil || err2 != nil {
		return base
	}
	total := p*100 + c + 100*n
	return fmt.Sprintf("%d.%02d", total/100, total%100)
}

// RoundChange is how product id changes in round r ≥ 2 from round r-1:
// "price", "appeared", "disappeared", or "" (unchanged).
func RoundChange(id, r int) string {
	switch {
	case absentIn(id, r-1) && !absentIn(id, r):
		return "appeared"
	case !absentIn(id, r-1) && absentIn(id, r):
		return "disappeared"
	case !absentIn(id, r) && priceChangesIn(id, r):
		return "price"
	}
	return ""
}

// price is the price the item shows in the site's current round.
func (s *Site) price(it *item) string {
	r := s.Round()
	if r < 2 || it.private {
		return it.Price
	}
	return RoundPrice(it.id, it.Price, r)
}

// Validator kinds of a product page in a round.
const (
	validateETag = iota
	validateLastModified
	validateNone
)

func validatorOf(id int) int {
	switch id % 10 {
	case 6:
		return validateLastModified
	case 3:
		return validateNone
	}
	return validateETag
}

// roundEpoch is the Last-Modified of round 1; round k is k-1 days later.
var roundEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// validate sets the validators of a 200 HTML response in a round and
// reports whether the request's conditional headers match them: then the
// answer is 304 with no body.
func validate(h http.Header, r *http.Request, resp *response) (notModified bool) {
	if resp.status != http.StatusOK || !strings.HasPrefix(resp.ctype, "text/html") {
		return false
	}
	switch resp.validator {
	case validateNone:
		return false
	case validateLastModified:
		lm := resp.lastModified.UTC()
		h.Set("Cache-Control", "no-cache")
		h.Set("Last-Modified", lm.Format(http.TimeFormat))
		if ims, err := http.ParseTime(r.Header.Get("If-Modified-Since")); err == nil && r.Header.Get("If-None-Match") == "" {
			return !lm.After(ims)
		}
		return false
	}
	resp.etagOnce.Do(func() {
		sum := sha1.Sum(resp.body)
		resp.etag = `"` + hex.EncodeToString(sum[:8]) + `"`
	})
	h.Set("Cache-Control", "no-cache")
	h.Set("ETag", resp.etag)
	for _, tag := range strings.Split(r.Header.Get("If-None-Match"), ",") {
		tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
		if tag == resp.etag || tag == "*" {
			return true
		}
	}
	return false
}

// roundTruth is the truth of round r ≥ 1.
func (s *Site) roundTruth(r int) []Product {
	var out []Product
	for _, it := range s.items {
		if it.discontinued || absentIn(it.id, r) {
			continue
		}
		p := it.Product
		p.Price = RoundPrice(it.id, it.Price, r)
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URL < out[j].URL })
	return out
}

// ProductID returns the id of the product whose canonical path is path,
// or 0.
func (s *Site) ProductID(path string) int {
	if it := s.byPath[path]; it != nil && !it.private {
		return it.id
	}
	return 0
}

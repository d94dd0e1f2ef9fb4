package crawl

import (
	"maps"
	"testing"
)

// TestFailureMayPass: a run that could fetch nothing because the site was
// down (refused, DNS, a timeout, 5xx, 429, a robots.txt the server could
// not give) is followed by a run that fetches its seeds again; one whose
// seeds would be refused again (robots.txt disallows them, an internal
// address, an offsite redirect) is not. A mix is tried again: the seeds
// refused for good fail again, as any page may.
func TestFailureMayPass(t *testing.T) {
	for _, tt := range []struct {
		counts            map[string]int64
		robotsUnavailable bool
		want              bool
	}{
		{map[string]int64{"refused": 1}, false, true},
		{map[string]int64{"dns": 2}, false, true},
		{map[string]int64{"timeout": 1, "reset": 1}, false, true},
		{map[string]int64{"status_503": 1}, false, true},
		{map[string]int64{"status_429": 3}, false, true},
		{map[string]int64{"robots": 1}, true, true},
		{map[string]int64{"robots": 1}, false, false},
		{map[string]int64{"private_address": 1}, false, false},
		{map[string]int64{"offsite_redirect": 1, "invalid_url": 1}, false, false},
		{map[string]int64{"robots": 1, "refused": 1}, false, true},
		{map[string]int64{"refused": 0, "robots": 1}, false, false},
		{map[string]int64{}, false, false},
	} {
		if got := mayPass(tt.counts, tt.robotsUnavailable); got != tt.want {
			t.Errorf("mayPass(%v, robots unavailable %v) = %v, want %v", tt.counts, tt.robotsUnavailable, got, tt.want)
		}
	}
}

// TestLastFailureMayPass: the failure of the crawl's last run, as its
// metadata says it: by this cqueue, with its verdict; by an older one
// (the crawls left stuck by it), judged by the error codes of its
// message.
func TestLastFailureMayPass(t *testing.T) {
	for _, tt := range []struct {
		meta map[string]string
		want bool
	}{
		{map[string]string{metaLastFailure: "every seed failed: robots 1", metaLastFailureAgain: "yes"}, true},
		{map[string]string{metaLastFailure: "every seed failed: refused 1", metaLastFailureAgain: "no"}, false},
		{map[string]string{metaLastFailure: "every seed failed: refused 1"}, true},
		{map[string]string{metaLastFailure: "every fetch failed: dns 2, robots 1"}, true},
		{map[string]string{metaLastFailure: "every seed failed: robots 1"}, false},
		{map[string]string{metaLastFailure: "every seed failed: private_address 3, offsite_redirect 1"}, false},
		{map[string]string{metaLastFailure: "garbled"}, false},
	} {
		if got := lastFailureMayPass(tt.meta); got != tt.want {
			t.Errorf("lastFailureMayPass(%v) = %v, want %v", tt.meta, got, tt.want)
		}
	}
}

// TestFailureCounts: the pages answered 5xx or 429 count as failed, by
// status, beside the fetch errors; the others are pages fetched.
func TestFailureCounts(t *testing.T) {
	a := &crawlAccount{Pages: pagesAccount{
		ByStatus: map[string]int64{"503": 2, "429": 1, "404": 1, "200": 3},
		Errors:   map[string]int64{"refused": 1},
	}}
	want := map[string]int64{"status_503": 2, "status_429": 1, "refused": 1}
	if got := failureCounts(a); !maps.Equal(got, want) {
		t.Errorf("failureCounts = %v, want %v", got, want)
	}
	for status, want := range map[string]bool{"500": true, "503": true, "599": true, "429": true, "404": false, "200": false, "304": false, "": false} {
		if got := unavailableStatus(status); got != want {
			t.Errorf("unavailableStatus(%q) = %v, want %v", status, got, want)
		}
	}
}

package cexport

import (
	"path/filepath"
	"testing"

	"github.com/crawlutils/crawlutils/internal/pgtest"
)

// TestPostgresChangedOnlyHistory: into PostgreSQL, --changed-only --key
// url --history upserts the new and changed items, adds each to
// TABLE_history with its change and round, and leaves out the unchanged;
// the digests are in the --changes-db file.
func TestPostgresChangedOnlyHistory(t *testing.T) {
	url := pgtest.Start(t)
	state := filepath.Join(t.TempDir(), "changes.db")
	args := []string{"-o", url + "?table=prices", "--key", "url", "--changed-only", "--history", "--changes-db", state}
	round1 := lines(
		`{"kind":"item","data":{"url":"u1","price":"1.00"},"fetched_at":"2026-01-01T00:00:00Z","round":1}`,
		`{"kind":"item","data":{"url":"u2","price":"2.00"},"fetched_at":"2026-01-01T00:00:00Z","round":1}`)
	round2 := lines(
		`{"kind":"item","data":{"url":"u1","price":"1.00"},"fetched_at":"2026-01-02T00:00:00Z","round":2}`,
		`{"kind":"item","data":{"url":"u2","price":"2.50"},"fetched_at":"2026-01-02T00:00:00Z","round":2}`,
		`{"kind":"item","data":{"url":"u3","price":"3.00"},"fetched_at":"2026-01-02T00:00:00Z","round":2}`)
	for i, in := range []string{round1, round2} {
		if code, _, stderr := runCexport(t, in, args...); code != 0 {
			t.Fatalf("round %d: exit %d: %s", i+1, code, stderr)
		}
	}
	wantRows(t, pgRows(t, url, "SELECT url, price FROM prices ORDER BY url"), "u1|1.00", "u2|2.50", "u3|3.00")
	wantRows(t, pgRows(t, url, "SELECT url, price, change, round, changed_at FROM prices_history ORDER BY round, url"),
		"u1|1.00|new|1|2026-01-01T00:00:00Z",
		"u2|2.00|new|1|2026-01-01T00:00:00Z",
		"u2|2.50|changed|2|2026-01-02T00:00:00Z",
		"u3|3.00|new|2|2026-01-02T00:00:00Z")
	// Without --changes-db, PostgreSQL has nowhere to keep the digests.
	if code, _, stderr := runCexport(t, round1, "-o", url+"?table=prices", "--key", "url", "--changed-only"); code != 2 {
		t.Errorf("without --changes-db: exit %d: %s", code, stderr)
	}
}

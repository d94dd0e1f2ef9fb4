package frontier

import (
	"database/sql"
	"path/filepath"
	"testing"
	"time"
)

// TestSQLitePopBeatSpacing: Pop writes its consumer's heartbeat at most
// once a second, so that a pop with nothing to hand out writes nothing to
// the file; Leave forgets it, so a consumer that joins again is registered
// at its first pop.
func TestSQLitePopBeatSpacing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.db")
	f := openSQLite(t, path, Options{})
	c := join(t, f, elsewhere, t0)
	beatOf := func() time.Time {
		t.Helper()
		cs, err := f.Consumers(ctx)
		if err != nil || len(cs) != 1 {
			t.Fatalf("Consumers = %+v, %v", cs, err)
		}
		return cs[0].Beat
	}
	other, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	version := func() (v int64) {
		t.Helper()
		if err := other.QueryRow(`PRAGMA data_version`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	popAt := func(d time.Duration) {
		t.Helper()
		if _, err := f.Pop(ctx, PopOptions{Max: 1, Lease: time.Minute, Consumer: c, Window: 4}, t0.Add(d)); err != nil {
			t.Fatal(err)
		}
	}
	popAt(100 * time.Millisecond) // the first pop of this process beats
	if got := beatOf(); !got.Equal(t0.Add(100 * time.Millisecond)) {
		t.Errorf("beat after the first pop = %v", got)
	}
	v := version()
	popAt(900 * time.Millisecond)
	if got := beatOf(); !got.Equal(t0.Add(100 * time.Millisecond)) {
		t.Errorf("beat written again 800ms later: %v", got)
	}
	if version() != v {
		t.Error("a pop that handed out nothing wrote to the file")
	}
	popAt(1100 * time.Millisecond)
	if got := beatOf(); !got.Equal(t0.Add(1100 * time.Millisecond)) {
		t.Errorf("beat a second later = %v", got)
	}
	if err := f.Leave(ctx, c, t0.Add(1200*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	popAt(1300 * time.Millisecond) // registered again at once
	if got := beatOf(); !got.Equal(t0.Add(1300 * time.Millisecond)) {
		t.Errorf("beat of a consumer that left, at its next pop = %v", got)
	}
}

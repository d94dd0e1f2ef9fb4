package render

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestRemoveStaleProfiles: the profile of a process that is gone (kill -9
// of cfetch) is removed when a browser starts; those of running processes
// stay.
func TestRemoveStaleProfiles(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dirs := map[string]bool{ // name → kept
		profilePrefix + "4194305-abc":                      false, // above Linux's largest pid: gone
		profilePrefix + strconv.Itoa(os.Getpid()) + "-def": true,  // ours
		profilePrefix + "1-ghi":                            true,  // init runs
		"other-4194305-abc":                                true,  // not a profile
	}
	for name := range dirs {
		if err := os.MkdirAll(filepath.Join(tmp, name, "Default"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	removeStaleProfiles()
	for name, kept := range dirs {
		_, err := os.Stat(filepath.Join(tmp, name))
		if got := err == nil; got != kept {
			t.Errorf("%s: kept %v, want %v", name, got, kept)
		}
	}
}

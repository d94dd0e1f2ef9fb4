package render

import (
	"os"
	"path/filepath"
	"testing"
)

func TestUnwrap(t *testing.T) {
	dir := t.TempDir()
	self, err := os.Executable() // an ELF binary
	if err != nil {
		t.Fatal(err)
	}
	script := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name, body string
		want       string // "": the script itself
	}{
		{"debian", "#!/bin/sh -e\n\n" + self + " \"$@\"\n", self},
		{"exec", "#!/bin/sh\n# runs it\nexec " + self + " \"$@\"\n", self},
		{"flags", "#!/bin/sh\nexec " + self + " --no-sandbox \"$@\"\n", ""},
		{"two-commands", "#!/bin/sh\ncd /tmp\n" + self + " \"$@\"\n", ""},
		{"no-args", "#!/bin/sh\n" + self + "\n", ""},
		{"relative", "#!/bin/sh\nchromium \"$@\"\n", ""},
		{"script-target", "#!/bin/sh\n" + script("inner", "#!/bin/sh\necho\n") + " \"$@\"\n", ""},
		{"missing-target", "#!/bin/sh\n/nonexistent/chromium \"$@\"\n", ""},
	} {
		p := script(tc.name, tc.body)
		want := tc.want
		if want == "" {
			want = p
		}
		if got := unwrap(p); got != want {
			t.Errorf("%s: unwrap = %q, want %q", tc.name, got, want)
		}
	}
	if got := unwrap(self); got != self {
		t.Errorf("a binary: unwrap = %q, want itself", got)
	}
	if got := unwrap(filepath.Join(dir, "nonexistent")); got != filepath.Join(dir, "nonexistent") {
		t.Errorf("a missing file: unwrap = %q, want itself", got)
	}
}

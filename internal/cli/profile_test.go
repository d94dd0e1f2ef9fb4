package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func TestProfilePath(t *testing.T) {
	me := fmt.Sprintf("%s-%d", filepath.Base(os.Args[0]), os.Getpid())
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"/tmp/cpu.prof", "/tmp/cpu.prof"},
		{"/tmp/prof.%p", "/tmp/prof." + me},
		{"%p/%p.prof", me + "/" + me + ".prof"},
	} {
		if got := profilePath(tc.in); got != tc.want {
			t.Errorf("profilePath(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Package childproc is how a command starts another of the six: it finds
// the program (the one installed next to the running one first, so that
// one installation runs with its own tools, else on $PATH), and on Linux
// ties the child's life to its parent's.
package childproc

import (
	"os"
	"os/exec"
	"path/filepath"
)

// Find returns the path of the program name: next to the running program,
// else on $PATH (exec.LookPath's error when neither has it).
func Find(name string) (string, error) {
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return exec.LookPath(name)
}

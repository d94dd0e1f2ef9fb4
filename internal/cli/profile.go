package cli

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// ProfileEnv names a file to write a CPU profile of the run to (for
// `go tool pprof`); it is for measuring the tools, not for everyday use.
const ProfileEnv = "CRAWLUTILS_CPUPROFILE"

// startProfile starts the CPU profile ProfileEnv asks for and returns the
// function that stops it. A profile that cannot be written is reported on
// stderr and the run goes on without it.
func startProfile() (stop func()) {
	path := os.Getenv(ProfileEnv)
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v (no profile written)\n", ProfileEnv, err)
		if f != nil {
			f.Close()
		}
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

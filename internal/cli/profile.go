package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
)

// ProfileEnv names a file to write a CPU profile of the run to (for
// `go tool pprof`); it is for measuring the tools, not for everyday use.
// A "%p" in the name is replaced by the tool's name and process id
// (cfetch-4242), so that the processes of one loop, which all inherit the
// variable, each write their own file.
const ProfileEnv = "CRAWLUTILS_CPUPROFILE"

// MemProfileEnv names a file to write a heap profile to at the end of the
// run: what was allocated, and the peak in use (-sample_index=inuse_space
// shows what was live at the last GC).
const MemProfileEnv = "CRAWLUTILS_MEMPROFILE"

// startProfile starts the CPU profile ProfileEnv asks for and returns the
// function that stops it. A profile that cannot be written is reported on
// stderr and the run goes on without it.
func startProfile() (stop func()) {
	stopCPU := startCPUProfile()
	return func() {
		stopCPU()
		writeHeapProfile()
	}
}

// writeHeapProfile writes the heap profile MemProfileEnv asks for.
func writeHeapProfile() {
	path := profilePath(os.Getenv(MemProfileEnv))
	if path == "" {
		return
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.Lookup("allocs").WriteTo(f, 0)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v (no profile written)\n", MemProfileEnv, err)
	}
}

func startCPUProfile() (stop func()) {
	path := profilePath(os.Getenv(ProfileEnv))
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

// profilePath replaces each "%p" of the profile file name path by the
// tool's name and process id.
func profilePath(path string) string {
	if !strings.Contains(path, "%p") {
		return path
	}
	return strings.ReplaceAll(path, "%p", fmt.Sprintf("%s-%d", filepath.Base(os.Args[0]), os.Getpid()))
}

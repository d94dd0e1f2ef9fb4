//go:build race

package cfetch

// raceEnabled: the race detector multiplies the memory a process takes.
const raceEnabled = true

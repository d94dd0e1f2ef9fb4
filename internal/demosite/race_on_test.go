//go:build race

package demosite

// raceEnabled makes the slowest tests use smaller sites under -race.
const raceEnabled = true

//go:build !race

package cfetch

const raceEnabled = false

//go:build !race

package segment_test

const raceEnabled = false

//go:build !race

package local_test

// raceEnabled trims the heaviest test matrices under the race detector,
// which slows pixel loops some twentyfold.
const raceEnabled = false

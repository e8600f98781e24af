//go:build race

package segment_test

// raceEnabled trims the test matrices under the race detector, which slows
// pixel loops some twentyfold.
const raceEnabled = true

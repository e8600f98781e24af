//go:build race

package judge

// raceEnabled trims the heaviest tests under the race detector, which slows
// pixel loops some twentyfold.
const raceEnabled = true

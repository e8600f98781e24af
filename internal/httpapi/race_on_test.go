//go:build race

package httpapi_test

// raceEnabled: the race detector is on; the heaviest develops run on one engine.
const raceEnabled = true

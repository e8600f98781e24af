//go:build race

package main

// raceEnabled tells whether this test binary runs under the race detector
// (plainProgram builds a copy without it for TestScale's processes).
const raceEnabled = true

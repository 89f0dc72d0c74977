//go:build race

package cdp

// raceDetector is true when the tests run with -race.
const raceDetector = true

//go:build race

package screen

const raceEnabled = true

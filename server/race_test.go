//go:build race

package main

// raceEnabled: the race detector makes memory and speed tests meaningless; make test runs those without it.
const raceEnabled = true

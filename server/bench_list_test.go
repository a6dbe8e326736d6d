package main

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestProfileListing serves the listing under wrk for a few seconds, for a CPU profile of the server's side:
// PROFILE_LISTING=1 go test ./server -run ProfileListing -cpuprofile cpu.out
func TestProfileListing(t *testing.T) {
	if os.Getenv("PROFILE_LISTING") == "" {
		t.Skip("set PROFILE_LISTING=1")
	}
	base := startServer(t, map[string]string{"RATE_READS": "1000000000"})
	out, err := exec.Command("wrk", "-t2", "-c64", "-d5s", base+"/api/collusion/notes?limit=50").CombinedOutput()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", out)
	time.Sleep(100 * time.Millisecond)
}

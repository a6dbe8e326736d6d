package main

import (
	"fmt"
	"testing"

	"twofold/server/apitest"
)

// BenchmarkPost posts notes from 32 clients on distinct handles and addresses to the real server in-process,
// so that a CPU profile shows the server's side (go test -bench Post -cpuprofile cpu.out ./server).
func BenchmarkPost(b *testing.B) {
	base := startServer(b, map[string]string{"TRUSTED_PROXIES": "127.0.0.1/32", "RATE_POSTS": "1000000000", "RATE_CHALLENGES": "1000000000"})
	c := &client{t: b, base: base} // no contract checks: they would be most of the profile
	chs := make([]map[string]string, b.N)
	for i := range chs {
		chs[i] = c.challenge(map[string]string{"X-Forwarded-For": fmt.Sprintf("10.1.%d.%d", i/250, i%250)})
	}
	b.ResetTimer()
	apitest.InParallel(b.N, 32, func(i int) {
		r := c.do("POST", "/api/collusion/notes", map[string]any{"handle": fmt.Sprintf("Bench%05d", i/5), "model": "m-1",
			"body": fmt.Sprintf("Benchmark note %d, a short line.", i), "challenge": chs[i]},
			map[string]string{"X-Forwarded-For": fmt.Sprintf("10.2.%d.%d", i/250, i%250)})
		if r.status != 201 {
			b.Errorf("post: %s", r.raw)
		}
	})
}

// Command bench posts notes to a running server as fast as it takes them and reports stored notes per second:
// challenges are fetched and solved first, untimed, then clients on distinct handles and addresses post at once.
// The server must trust 127.0.0.1 as a proxy (TRUSTED_PROXIES=127.0.0.1/32) so that each note comes from its own
// address; run by server/bench/run.sh (make bench-board).
//
//	go run ./server/bench -base http://127.0.0.1:8480 -notes 10000 -clients 32
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"twofold/server/apitest"

	"github.com/valyala/fasthttp"
)

func main() {
	base := flag.String("base", "http://127.0.0.1:8480", "the server")
	notes := flag.Int("notes", 10000, "notes to post")
	clients := flag.Int("clients", 32, "concurrent clients")
	flag.Parse()
	if err := run(*base, *notes, *clients); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

var client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}, Timeout: 30 * time.Second}

func request(method, url string, body any, ip string, out any) (int, error) {
	var rd io.Reader
	if body != nil {
		data, _ := json.Marshal(body)
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Forwarded-For", ip)
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, err
	}
	if out != nil && resp.StatusCode < 300 {
		return resp.StatusCode, json.Unmarshal(data, out)
	}
	if resp.StatusCode >= 300 {
		return resp.StatusCode, fmt.Errorf("%d %s", resp.StatusCode, data)
	}
	return resp.StatusCode, nil
}

func address(i int) string { return fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255) }

func run(base string, n, clients int) error {
	type solved struct{ id, answer string }
	challenges := make([]solved, n)
	var firstErr error
	var errOnce sync.Once
	fail := func(err error) { errOnce.Do(func() { firstErr = err }) }
	apitest.InParallel(n, 16, func(i int) {
		var ch struct {
			Data struct{ ID, Question string }
		}
		if _, err := request("GET", base+"/api/collusion/challenge", nil, address(i), &ch); err != nil {
			fail(err)
			return
		}
		challenges[i] = solved{ch.Data.ID, apitest.Solve(ch.Data.Question)}
	})
	if firstErr != nil {
		return firstErr
	}

	// Bodies are encoded before the clock starts, and fasthttp's client sends them: the load generator shares the
	// machine's two cores with the server, so it should take as little of them as it can.
	bodies := make([][]byte, n)
	for i := range bodies {
		bodies[i], _ = json.Marshal(map[string]any{
			"handle": fmt.Sprintf("Bench%05d", i/5), "model": "bench-model",
			"body":      fmt.Sprintf("Benchmark note %d: a short line of text, as agents write them.", i),
			"challenge": map[string]string{"id": challenges[i].id, "answer": challenges[i].answer},
		})
	}
	fast := &fasthttp.Client{MaxConnsPerHost: clients, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second}
	latencies := make([]time.Duration, n)
	var stored, refused atomic.Int64
	start := time.Now()
	apitest.InParallel(n, clients, func(i int) {
		req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
		defer fasthttp.ReleaseRequest(req)
		defer fasthttp.ReleaseResponse(resp)
		req.SetRequestURI(base + "/api/collusion/notes")
		req.Header.SetMethod("POST")
		req.Header.SetContentType("application/json")
		req.Header.Set("X-Forwarded-For", address(1<<20+i))
		req.SetBody(bodies[i])
		t := time.Now()
		err := fast.Do(req, resp)
		latencies[i] = time.Since(t)
		if err == nil && resp.StatusCode() == 201 {
			stored.Add(1)
			return
		}
		refused.Add(1)
		if err == nil {
			err = fmt.Errorf("%d %s", resp.StatusCode(), resp.Body())
		}
		fail(err)
	})
	elapsed := time.Since(start)
	slices.Sort(latencies)
	fmt.Printf("posted %d notes with %d clients in %s: %.0f stored notes/s, p50 %s, p99 %s, %d refused\n",
		n, clients, elapsed.Round(time.Millisecond), float64(stored.Load())/elapsed.Seconds(),
		latencies[n/2].Round(10*time.Microsecond), latencies[n*99/100].Round(10*time.Microsecond), refused.Load())
	if refused.Load() > 0 {
		return fmt.Errorf("%d notes refused, first: %v", refused.Load(), firstErr)
	}
	return nil
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"twofold/server/apitest"

	"github.com/valyala/fasthttp"
)

// generator sends the soak's traffic and counts what comes back.
type generator struct {
	base   string
	client *fasthttp.Client

	requests, s5xx, errors, late, posted atomic.Int64
	statuses                             sync.Map // int → *atomic.Int64

	mu      sync.Mutex
	latency []float64 // ms, this window
	ids     []string  // notes answered 201
	threads []string  // note ids to read threads of
	handles atomic.Int64
}

type counts struct{ requests, s5xx, errors, late, posted int64 }

func (g *generator) snapshot() counts {
	return counts{g.requests.Load(), g.s5xx.Load(), g.errors.Load(), g.late.Load(), g.posted.Load()}
}

func (g *generator) reset() {
	g.requests.Store(0)
	g.s5xx.Store(0)
	g.errors.Store(0)
	g.late.Store(0)
	g.statuses.Range(func(k, _ any) bool { g.statuses.Delete(k); return true })
	g.mu.Lock()
	g.latency = g.latency[:0]
	g.mu.Unlock()
}

// windowP99 returns the 99th percentile of the latencies since the last call, and starts a new window.
func (g *generator) windowP99() float64 {
	g.mu.Lock()
	l := g.latency
	g.latency = nil
	g.mu.Unlock()
	if len(l) == 0 {
		return 0
	}
	sort.Float64s(l)
	return l[len(l)*99/100]
}

func (g *generator) acked() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.ids)
}

func (g *generator) statusLine() string {
	var parts []string
	g.statuses.Range(func(k, v any) bool {
		parts = append(parts, fmt.Sprintf("%d: %d", k.(int), v.(*atomic.Int64).Load()))
		return true
	})
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// do sends one request and records its status and latency; it returns the status and the body (copied).
func (g *generator) do(method, path, body string, header map[string]string) (int, []byte) {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.Header.SetMethod(method)
	req.SetRequestURI(g.base + path)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	if body != "" {
		req.Header.SetContentType("application/json")
		req.SetBodyString(body)
	}
	start := time.Now()
	err := g.client.Do(req, resp)
	took := float64(time.Since(start).Microseconds()) / 1000
	g.requests.Add(1)
	if err != nil {
		g.errors.Add(1)
		return 0, nil
	}
	status := resp.StatusCode()
	if status >= 500 {
		g.s5xx.Add(1)
	}
	c, _ := g.statuses.LoadOrStore(status, new(atomic.Int64))
	c.(*atomic.Int64).Add(1)
	g.mu.Lock()
	g.latency = append(g.latency, took)
	g.mu.Unlock()
	return status, append([]byte(nil), resp.Body()...)
}

// address is a client address for X-Forwarded-For: many of them, as the board sees visitors.
func address() string {
	return fmt.Sprintf("203.0.%d.%d", rand.IntN(256), 1+rand.IntN(254))
}

var ogTitles = func() (t []string) {
	for i := range 200 {
		t = append(t, fmt.Sprintf("title=Soak+%d&subtitle=Mixed+traffic&type=%s", i, []string{"default", "article", "speaking", "portfolio"}[i%4]))
	}
	return t
}()

// read sends one request of the read mix: the board, threads, challenges, MCP, OG, logos, the feed, health, and
// bad requests, in fixed shares.
func (g *generator) read() {
	xff := map[string]string{"X-Forwarded-For": address()}
	switch n := rand.IntN(100); {
	case n < 28:
		g.do("GET", "/api/collusion/notes?limit="+[]string{"20", "50", "10"}[rand.IntN(3)], "", xff)
	case n < 40:
		g.mu.Lock()
		id := ""
		if len(g.threads) > 0 {
			id = g.threads[rand.IntN(len(g.threads))]
		}
		g.mu.Unlock()
		if id != "" {
			g.do("GET", "/api/collusion/notes/"+id, "", xff)
		} else {
			g.do("GET", "/api/collusion/notes", "", xff)
		}
	case n < 48:
		g.do("GET", "/api/collusion/challenge", "", xff)
	case n < 62:
		body := []string{
			`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_collusion_challenge","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_collusion_notes","arguments":{"limit":5}}}`,
			`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_profile","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":5,"method":"ping"}`,
		}[rand.IntN(5)]
		g.do("POST", "/api/mcp", body, map[string]string{"X-Forwarded-For": xff["X-Forwarded-For"], "MCP-Protocol-Version": "2025-06-18"})
	case n < 76:
		g.do("GET", "/api/og?"+ogTitles[rand.IntN(len(ogTitles))], "", xff)
	case n < 82:
		g.do("GET", "/api/logo/"+domains[rand.IntN(len(domains))], "", xff)
	case n < 86:
		g.do("GET", "/api/writing", "", xff)
	case n < 88:
		g.do("GET", "/api/health", "", nil)
	case n < 91:
		g.do("GET", "/", "", nil)
	default: // bad requests: each must be a 4xx
		switch rand.IntN(7) {
		case 0:
			g.do("POST", "/api/collusion/notes", `{"handle":`, xff)
		case 1:
			g.do("GET", "/api/collusion/notes?limit=abc", "", xff)
		case 2:
			g.do("PUT", "/api/collusion/challenge", "", xff)
		case 3:
			g.do("GET", "/api/logo/127.0.0.1", "", xff)
		case 4:
			g.do("GET", "/api/og?title="+strings.Repeat("x", 130), "", xff)
		case 5:
			g.do("POST", "/api/mcp", `{"jsonrpc":"2.0","id":1,"method":`, xff)
		default:
			g.do("GET", "/api/no-such-route", "", xff)
		}
	}
}

// post fetches a challenge, solves it and posts a note from a fresh address; a handle posts at most 4 notes.
func (g *generator) post() {
	xff := map[string]string{"X-Forwarded-For": address()}
	status, body := g.do("GET", "/api/collusion/challenge", "", xff)
	if status != 200 {
		return
	}
	var ch struct {
		Data struct{ ID, Question string } `json:"data"`
	}
	if json.Unmarshal(body, &ch) != nil {
		return
	}
	n := g.handles.Add(1)
	note := map[string]any{
		"handle": fmt.Sprintf("Soak%05d", n/4), "model": "soak-generator",
		"body":      fmt.Sprintf("Soak note %d: checking that the board holds up under load for ten minutes.", n),
		"challenge": map[string]string{"id": ch.Data.ID, "answer": apitest.Solve(ch.Data.Question)},
	}
	g.mu.Lock()
	if len(g.ids) > 0 && rand.IntN(3) == 0 {
		note["in_reply_to"] = g.ids[rand.IntN(len(g.ids))]
	}
	g.mu.Unlock()
	raw, _ := json.Marshal(note)
	status, body = g.do("POST", "/api/collusion/notes", string(raw), xff)
	if status != 201 {
		return
	}
	var posted struct {
		Data struct {
			Note struct{ ID string } `json:"note"`
		} `json:"data"`
	}
	if json.Unmarshal(body, &posted) == nil && posted.Data.Note.ID != "" {
		g.posted.Add(1)
		g.mu.Lock()
		g.ids = append(g.ids, posted.Data.Note.ID)
		g.threads = append(g.threads, posted.Data.Note.ID)
		g.mu.Unlock()
	}
}

// saturate runs the read mix closed-loop with workers for d and returns the requests answered per second.
func (g *generator) saturate(d time.Duration, workers int) float64 {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	before := g.requests.Load()
	start := time.Now()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for ctx.Err() == nil {
				g.read()
			}
		})
	}
	wg.Wait()
	return float64(g.requests.Load()-before) / time.Since(start).Seconds()
}

// paced offers reads at rate a second and posts at posts a second, open loop: each request is sent on its
// schedule by a pool of workers; one that finds no idle worker is counted late and sent when one frees up.
func (g *generator) paced(ctx context.Context, rate, posts float64) {
	jobs := make(chan func(), 4096)
	var wg sync.WaitGroup
	for range 256 {
		wg.Go(func() {
			for j := range jobs {
				j()
			}
		})
	}
	send := func(j func()) {
		select {
		case jobs <- j:
		default:
			g.late.Add(1)
			select {
			case jobs <- j:
			case <-ctx.Done():
			}
		}
	}
	const tick = 5 * time.Millisecond
	t := time.NewTicker(tick)
	defer t.Stop()
	var owedReads, owedPosts float64
	for {
		select {
		case <-ctx.Done():
			close(jobs)
			wg.Wait()
			return
		case <-t.C:
			owedReads += rate * tick.Seconds()
			owedPosts += posts * tick.Seconds()
			for ; owedReads >= 1; owedReads-- {
				send(g.read)
			}
			for ; owedPosts >= 1; owedPosts-- {
				send(g.post)
			}
		}
	}
}

// readBack reads every acknowledged note and returns the ids that are not there.
func (g *generator) readBack() []string {
	var lost []string
	var mu sync.Mutex
	ids := g.acked()
	var wg sync.WaitGroup
	ch := make(chan string)
	for range 16 {
		wg.Go(func() {
			for id := range ch {
				if status, _ := g.do("GET", "/api/collusion/notes/"+id, "", map[string]string{"X-Forwarded-For": address()}); status != 200 {
					mu.Lock()
					lost = append(lost, id)
					mu.Unlock()
				}
			}
		})
	}
	for _, id := range ids {
		ch <- id
	}
	close(ch)
	wg.Wait()
	return lost
}

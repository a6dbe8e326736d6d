// Command soak runs the server under mixed traffic for a long while and checks that it holds: no 5xx, no lost
// note, memory that does not grow after the first minute beyond noise. Run by server/bench/soak.sh (make soak).
//
// It starts the server binary it is given on 127.0.0.1 with a fresh store (logo lookups for a set of domains are
// seeded into the store's cache, so that no lookup leaves the machine; the blog's feed is served here), measures
// the mix's maximum for -calibrate, then offers -load of it for -duration with an open-loop pacer: reads of notes
// and threads, challenges, posts from many handles and addresses (X-Forwarded-For, the server trusting 127.0.0.1),
// MCP calls, Open Graph images, logos, the feed, health, and bad requests. Every -sample it reads the server's
// /metrics (memory, goroutines, open files, 5xx) and its own counts into a CSV row. At the end it reads back every
// note that was answered 201.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/png"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"twofold/server/logo"
	"twofold/server/store"

	"github.com/valyala/fasthttp"
	"log/slog"
)

func main() {
	server := flag.String("server", "", "the server binary")
	public := flag.String("public", "", "the built site (PUBLIC_DIR); empty serves the API only")
	duration := flag.Duration("duration", 10*time.Minute, "how long the soak runs")
	calibrate := flag.Duration("calibrate", 10*time.Second, "how long the maximum is measured")
	load := flag.Float64("load", 0.7, "the share of the maximum offered")
	postsPerSec := flag.Float64("posts", 10, "notes posted a second (with a challenge each)")
	every := flag.Duration("sample", 10*time.Second, "sampling period")
	out := flag.String("out", "soak-out", "folder for samples.csv and summary.md")
	flag.Parse()
	if *server == "" {
		fmt.Fprintln(os.Stderr, "soak: -server is required")
		os.Exit(2)
	}
	ok, err := run(config{*server, *public, *duration, *calibrate, *load, *postsPerSec, *every, *out})
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
	if !ok {
		os.Exit(1)
	}
}

type config struct {
	server, public      string
	duration, calibrate time.Duration
	load, posts         float64
	every               time.Duration
	out                 string
}

// domains are seeded into the logo cache; every logo request of the soak asks one of them or an invalid name.
var domains = func() (d []string) {
	for i := range 50 {
		d = append(d, fmt.Sprintf("soak-site-%02d.com", i))
	}
	return d
}()

const feedXML = `<?xml version="1.0"?><rss version="2.0"><channel><title>Notes</title><link>https://notes.example/</link>` +
	`<item><title>A post</title><link>/a</link><pubDate>Thu, 02 Oct 2025 08:00:00 GMT</pubDate></item></channel></rss>`

func run(c config) (bool, error) {
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return false, err
	}
	work, err := os.MkdirTemp("", "twofold-soak-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(work)
	data := filepath.Join(work, "data")
	if err := seedLogos(data); err != nil {
		return false, fmt.Errorf("seed logos: %w", err)
	}
	feed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, feedXML) }))
	defer feed.Close()

	addr, metricsAddr := freeAddr(), freeAddr()
	cmd := exec.Command(c.server)
	cmd.Env = append(os.Environ(), "ADDR="+addr, "METRICS_ADDR="+metricsAddr, "DATA_DIR="+data, "PUBLIC_DIR="+c.public,
		"TRUSTED_PROXIES=127.0.0.1/32", "WRITING_FEED_URL="+feed.URL+"/feed.xml", "LOGO_SERVICES=", "LOG_LEVEL=warn",
		"LOG_FORMAT=text", "RATE_MCP=1000000", "RATE_READS=1000000", "RATE_CHALLENGES=1000000", "RATE_LOGOS=1000000", "RATE_POSTS=1000000")
	logFile, _ := os.Create(filepath.Join(c.out, "server.log"))
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return false, err
	}
	defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
	base := "http://" + addr
	if err := waitUp(base + "/api/health"); err != nil {
		return false, err
	}

	g := &generator{base: base, client: &fasthttp.Client{MaxConnsPerHost: 512, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second}}
	fmt.Fprintf(os.Stderr, "soak: calibrating the mix for %s\n", c.calibrate)
	max := g.saturate(c.calibrate, 64)
	rate := max * c.load
	fmt.Fprintf(os.Stderr, "soak: maximum %.0f req/s; offering %.0f req/s (%.0f%%) and %.0f posts/s for %s\n", max, rate, c.load*100, c.posts, c.duration)
	g.reset()

	csvFile, err := os.Create(filepath.Join(c.out, "samples.csv"))
	if err != nil {
		return false, err
	}
	defer csvFile.Close()
	csv := bufio.NewWriter(csvFile)
	fmt.Fprintln(csv, "seconds,requests,req_per_s,p99_ms,client_5xx,server_5xx,errors,late,posted,rss_mb,heap_inuse_mb,heap_live_mb,goroutines,open_fds")
	var samples []sample
	ctx, cancel := context.WithTimeout(context.Background(), c.duration)
	defer cancel()
	done := make(chan struct{})
	go func() { g.paced(ctx, rate, c.posts); close(done) }()
	start := time.Now()
	tick := time.NewTicker(c.every)
	last := g.snapshot()
loop:
	for {
		select {
		case <-done:
			break loop
		case <-tick.C:
			now := g.snapshot()
			m, err := scrape("http://" + metricsAddr + "/metrics")
			if err != nil {
				return false, fmt.Errorf("metrics: %w", err)
			}
			s := sample{
				at: time.Since(start), requests: now.requests - last.requests, p99: g.windowP99(),
				client5xx: now.s5xx, server5xx: m.fivexx, errors: now.errors, late: now.late, posted: now.posted,
				rss: m.rss, heap: m.heap, live: m.live, goroutines: m.goroutines, fds: m.fds,
			}
			s.rps = float64(s.requests) / c.every.Seconds()
			samples = append(samples, s)
			last = now
			fmt.Fprintf(csv, "%.0f,%d,%.0f,%.2f,%d,%.0f,%d,%d,%d,%.1f,%.1f,%.1f,%.0f,%.0f\n", s.at.Seconds(), s.requests, s.rps, s.p99,
				s.client5xx, s.server5xx, s.errors, s.late, s.posted, s.rss/1e6, s.heap/1e6, s.live/1e6, s.goroutines, s.fds)
			csv.Flush()
			fmt.Fprintf(os.Stderr, "  %4.0fs %6.0f req/s p99 %6.2f ms  5xx %d/%0.f  rss %6.1f MB live heap %6.1f MB  goroutines %4.0f fds %4.0f posted %d\n",
				s.at.Seconds(), s.rps, s.p99, s.client5xx, s.server5xx, s.rss/1e6, s.live/1e6, s.goroutines, s.fds, s.posted)
		}
	}
	tick.Stop()

	// A heap profile of the server at the end, for whoever wants to know what holds its memory.
	if r, err := http.Get("http://" + metricsAddr + "/debug/pprof/heap"); err == nil {
		if f, err := os.Create(filepath.Join(c.out, "heap.pprof")); err == nil {
			io.Copy(f, r.Body)
			f.Close()
		}
		r.Body.Close()
	}
	// Every acknowledged note must be readable.
	fmt.Fprintf(os.Stderr, "soak: reading back %d acknowledged notes\n", len(g.acked()))
	lost := g.readBack()
	return summarize(c, samples, g, max, rate, lost)
}

type sample struct {
	at                               time.Duration
	requests                         int64
	rps, p99                         float64
	client5xx, errors, late          int64
	posted                           int64
	server5xx                        float64
	rss, heap, live, goroutines, fds float64
}

func summarize(c config, samples []sample, g *generator, max, rate float64, lost []string) (bool, error) {
	if len(samples) < 3 {
		return false, errors.New("too few samples")
	}
	lastS := samples[len(samples)-1]
	// Memory, after the first minute: the live heap (what the program holds after a collection) must not grow
	// beyond noise from the second minute to the last; the RSS (which also holds pages the Go runtime and Pebble's
	// allocator keep for reuse, and which fill towards a plateau) must have levelled off: over the second half of
	// the run it may grow by noise only.
	window := func(from, to time.Duration, f func(sample) float64) []float64 {
		var v []float64
		for _, s := range samples {
			if s.at > from && s.at <= to {
				v = append(v, f(s))
			}
		}
		return v
	}
	rss := func(s sample) float64 { return s.rss }
	live := func(s sample) float64 { return s.live }
	end, half := lastS.at, lastS.at/2
	liveEarly, liveLate := median(window(time.Minute, 2*time.Minute, live)), median(window(end-time.Minute, end, live))
	liveAllowed := liveEarly*1.10 + 8e6
	early := median(window(time.Minute, 2*time.Minute, rss))
	mid, late := median(window(half-30*time.Second, half+30*time.Second, rss)), median(window(end-time.Minute, end, rss))
	rssAllowed := mid*1.05 + 8e6
	memOK := liveLate <= liveAllowed && late <= rssAllowed
	var totalReq, late5 int64
	var p99s []float64
	for _, s := range samples {
		totalReq += s.requests
		p99s = append(p99s, s.p99)
	}
	late5 = lastS.late
	checks := []struct {
		name string
		ok   bool
		what string
	}{
		{"no 5xx (client's count)", lastS.client5xx == 0, fmt.Sprint(lastS.client5xx)},
		{"no 5xx (server's metrics)", lastS.server5xx == 0, fmt.Sprint(lastS.server5xx)},
		{"no lost note", len(lost) == 0, fmt.Sprintf("%d of %d acknowledged notes unreadable", len(lost), len(g.acked()))},
		{"memory flat after the first minute", memOK, fmt.Sprintf("live heap %.1f MB in minute 2, %.1f MB in the last minute (allowed %.1f MB); "+
			"RSS %.1f MB in minute 2, %.1f MB mid-run, %.1f MB in the last minute (allowed %.1f MB)",
			liveEarly/1e6, liveLate/1e6, liveAllowed/1e6, early/1e6, mid/1e6, late/1e6, rssAllowed/1e6)},
		{"no transport errors", lastS.errors == 0, fmt.Sprint(lastS.errors)},
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Soak, %s, %s of mixed traffic at %.0f%% of the measured maximum (%.0f of %.0f req/s) plus %.0f posts/s\n\n",
		time.Now().UTC().Format("2006-01-02"), c.duration, c.load*100, rate, max, c.posts)
	fmt.Fprintf(&b, "| measure | value |\n|---|---|\n")
	fmt.Fprintf(&b, "| requests answered | %d (%.0f req/s on average) |\n", totalReq, float64(totalReq)/lastS.at.Seconds())
	fmt.Fprintf(&b, "| p99 per 10 s window: median, worst | %.2f ms, %.2f ms |\n", median(p99s), slices.Max(p99s))
	fmt.Fprintf(&b, "| requests the pacer could not send on time | %d |\n", late5)
	fmt.Fprintf(&b, "| notes acknowledged (201), read back | %d, %d |\n", len(g.acked()), len(g.acked())-len(lost))
	fmt.Fprintf(&b, "| live heap: first sample, minute 2, last minute | %.1f MB, %.1f MB, %.1f MB |\n", samples[0].live/1e6, liveEarly/1e6, liveLate/1e6)
	fmt.Fprintf(&b, "| RSS: first sample, minute 2, mid-run, last minute | %.1f MB, %.1f MB, %.1f MB, %.1f MB |\n", samples[0].rss/1e6, early/1e6, mid/1e6, late/1e6)
	fmt.Fprintf(&b, "| Go heap in use: first, last | %.1f MB, %.1f MB |\n", samples[0].heap/1e6, lastS.heap/1e6)
	fmt.Fprintf(&b, "| goroutines: first, max, last | %.0f, %.0f, %.0f |\n", samples[0].goroutines, maxOf(samples, func(s sample) float64 { return s.goroutines }), lastS.goroutines)
	fmt.Fprintf(&b, "| open files: first, max, last | %.0f, %.0f, %.0f |\n", samples[0].fds, maxOf(samples, func(s sample) float64 { return s.fds }), lastS.fds)
	fmt.Fprintf(&b, "| answers by status | %s |\n", g.statusLine())
	fmt.Fprintf(&b, "\n")
	pass := true
	for _, ch := range checks {
		mark := "pass"
		if !ch.ok {
			mark, pass = "FAIL", false
		}
		fmt.Fprintf(&b, "- %s: %s (%s)\n", mark, ch.name, ch.what)
	}
	if len(lost) > 0 {
		fmt.Fprintf(&b, "\nLost notes (first 10): %s\n", strings.Join(lost[:min(10, len(lost))], ", "))
	}
	fmt.Print(b.String())
	return pass, os.WriteFile(filepath.Join(c.out, "summary.md"), []byte(b.String()), 0o644)
}

func maxOf(s []sample, f func(sample) float64) float64 {
	m := 0.0
	for _, x := range s {
		m = max(m, f(x))
	}
	return m
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Clone(v)
	sort.Float64s(v)
	return v[len(v)/2]
}

// seedLogos stores a found logo for every soak domain, as a lookup would have.
func seedLogos(dir string) error {
	st, err := store.Open(dir, slog.New(slog.DiscardHandler))
	if err != nil {
		return err
	}
	defer st.Close()
	var img bytes.Buffer
	png.Encode(&img, image.NewGray(image.Rect(0, 0, 64, 64)))
	entry := logo.EncodeEntry(logo.Logo{Data: img.Bytes(), ContentType: "image/png"})
	for _, d := range domains {
		if err := st.CachePut("logo/"+d, entry, time.Now().Add(logo.HitTTL)); err != nil {
			return err
		}
	}
	return nil
}

func freeAddr() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func waitUp(url string) error {
	for range 100 {
		if r, err := http.Get(url); err == nil {
			r.Body.Close()
			if r.StatusCode == 200 {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return errors.New("the server did not come up")
}

type metricsSample struct{ rss, heap, live, goroutines, fds, fivexx float64 }

func scrape(url string) (metricsSample, error) {
	var m metricsSample
	resp, err := http.Get(url)
	if err != nil {
		return m, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		name, value, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		v, _ := strconv.ParseFloat(value, 64)
		switch {
		case name == "process_resident_memory_bytes":
			m.rss = v
		case name == "go_memstats_heap_inuse_bytes":
			m.heap = v
		case name == "go_gc_heap_live_bytes":
			m.live = v
		case name == "go_goroutines":
			m.goroutines = v
		case name == "process_open_fds":
			m.fds = v
		case strings.HasPrefix(name, "twofold_http_requests_total{") && strings.Contains(name, `status="5`):
			m.fivexx += v
		}
	}
	return m, sc.Err()
}

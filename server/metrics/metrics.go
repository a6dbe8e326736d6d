// Package metrics holds the server's numbers for operators, in Prometheus' text format (client_golang): requests by
// route and status, latency histograms by route, notes stored, screen rejections by category, rate-limit refusals,
// cache hits and misses, and the Go runtime's and the process's own (memory, goroutines, open files). They are
// served on their own listen address (METRICS_ADDR), never beside the public API. A nil *Metrics records nothing.
package metrics

import (
	"net/http"
	"net/http/pprof"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttpadaptor"
)

// Metrics is one registry and the instruments the server records into.
type Metrics struct {
	Registry   *prometheus.Registry
	requests   *prometheus.CounterVec
	latency    *prometheus.HistogramVec
	rejections *prometheus.CounterVec
	limited    *prometheus.CounterVec
}

// New makes a registry with the Go runtime's and the process's collectors and the server's instruments.
func New() *Metrics {
	r := prometheus.NewRegistry()
	// The Go collector's usual series, and the live heap after the last collection (go_gc_heap_live_bytes): the
	// memory the program holds, which RSS hides behind the runtime's and Pebble's own retained pages.
	r.MustRegister(collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(
		collectors.GoRuntimeMetricsRule{Matcher: regexp.MustCompile(`^/gc/heap/live:bytes$`)})),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m := &Metrics{
		Registry: r,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "twofold_http_requests_total", Help: "HTTP requests answered, by route (the route table's pattern, or static) and status.",
		}, []string{"route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "twofold_http_request_duration_seconds", Help: "Time to answer a request, by route.",
			Buckets: []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10},
		}, []string{"route"}),
		rejections: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "twofold_screen_rejections_total", Help: "Notes refused by the content screen, by category.",
		}, []string{"category"}),
		limited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "twofold_rate_limited_total", Help: "Requests refused by a per-address limit, by limit.",
		}, []string{"limit"}),
	}
	r.MustRegister(m.requests, m.latency, m.rejections, m.limited)
	return m
}

var statusText = func() (t [600]string) {
	for i := range t {
		t[i] = strconv.Itoa(i)
	}
	return t
}()

// Observe records one answered request.
func (m *Metrics) Observe(route string, status int, took time.Duration) {
	if m == nil {
		return
	}
	s := "other"
	if status >= 0 && status < len(statusText) {
		s = statusText[status]
	}
	m.requests.WithLabelValues(route, s).Inc()
	m.latency.WithLabelValues(route).Observe(took.Seconds())
}

// Rejected records a note refused by the screen.
func (m *Metrics) Rejected(category string) {
	if m != nil {
		m.rejections.WithLabelValues(category).Inc()
	}
}

// RateLimited records a refusal by a per-address limit.
func (m *Metrics) RateLimited(limit string) {
	if m != nil {
		m.limited.WithLabelValues(limit).Inc()
	}
}

// Gauge exposes a value read at each scrape.
func (m *Metrics) Gauge(name, help string, f func() float64) {
	if m != nil {
		m.Registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f))
	}
}

// Cache exposes a cache's hits and misses, read at each scrape, as twofold_cache_requests_total{cache, result}.
func (m *Metrics) Cache(name string, stats func() (hits, misses uint64)) {
	if m == nil {
		return
	}
	for _, result := range []string{"hit", "miss"} {
		m.Registry.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "twofold_cache_requests_total", Help: "Cache lookups, by cache and result.",
			ConstLabels: prometheus.Labels{"cache": name, "result": result},
		}, func() float64 {
			hits, misses := stats()
			if result == "hit" {
				return float64(hits)
			}
			return float64(misses)
		}))
	}
}

// Handler answers GET /metrics in the Prometheus text format, Go's profiles under /debug/pprof/ (net/http/pprof)
// when profiles is true, and 404 elsewhere. Both belong on a private address.
func (m *Metrics) Handler(profiling bool) fasthttp.RequestHandler {
	h := fasthttpadaptor.NewFastHTTPHandler(promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{}))
	profiles := http.NewServeMux()
	profiles.HandleFunc("/debug/pprof/", pprof.Index)
	profiles.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	profiles.HandleFunc("/debug/pprof/profile", pprof.Profile)
	profiles.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	profiles.HandleFunc("/debug/pprof/trace", pprof.Trace)
	debug := fasthttpadaptor.NewFastHTTPHandler(profiles)
	return func(ctx *fasthttp.RequestCtx) {
		switch path := string(ctx.Path()); {
		case path == "/metrics":
			h(ctx)
		case profiling && strings.HasPrefix(path, "/debug/pprof/"):
			debug(ctx)
		case strings.HasPrefix(path, "/debug/pprof/"):
			ctx.Error("not found: Go's profiles are served only with PPROF=1\n", fasthttp.StatusNotFound)
		default:
			ctx.Error("not found: metrics are at /metrics\n", fasthttp.StatusNotFound)
		}
	}
}

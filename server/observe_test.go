package main

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"twofold/server/apitest"
	"twofold/server/content"
	"twofold/site"
)

func TestHealth(t *testing.T) {
	contract := apitest.NewContract(t)
	base := startServer(t, nil)
	a := do(t, contract, "GET", base+"/api/health")
	if a.status != 200 || !strings.Contains(a.body, `"status":"ok","store":"ok","version":"`) || a.header.Get("Cache-Control") != "no-store" {
		t.Errorf("healthy: %d %s", a.status, a.body)
	}
	// One version: openapi.json's, everywhere the server gives one.
	version, err := content.APIVersion(site.FS)
	if err != nil {
		t.Fatal(err)
	}
	_, _, init := rpc(t, "POST", base+"/api/mcp", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, nil)
	if !strings.Contains(a.body, `"version":"`+version+`"`) || !strings.Contains(init, `"version":"`+version+`"`) {
		t.Errorf("the version is not openapi.json's %s: health %s, initialize %s", version, a.body, init)
	}
	// A store that cannot be opened: the server serves, and says so.
	file := filepath.Join(t.TempDir(), "not-a-folder")
	os.WriteFile(file, []byte("x"), 0o644)
	sick := startServer(t, map[string]string{"DATA_DIR": file})
	if a := do(t, contract, "GET", sick+"/api/health"); a.status != 503 || !strings.Contains(a.body, `"code":"STORE_UNAVAILABLE"`) {
		t.Errorf("without a store: %d %s", a.status, a.body)
	}
	if a := do(t, contract, "GET", sick+"/api/og?title=Still+serving"); a.status != 200 {
		t.Errorf("the rest of the site: %d", a.status)
	}
}

// scrape reads the metrics and returns the value of the first sample matching a pattern.
func scrape(t *testing.T, addr string) string {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("metrics: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	return string(b)
}

func sample(t *testing.T, text, series string) float64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no sample %s", series)
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

func TestMetrics(t *testing.T) {
	var m *Main
	base := startServerWith(t, map[string]string{"METRICS_ADDR": "127.0.0.1:0", "RATE_LOGOS": "1"}, func(mm *Main) { m = mm })
	addr := m.MetricsAddr()
	if addr == "" {
		t.Fatal("METRICS_ADDR set, but no metrics listener")
	}
	before := scrape(t, addr)
	notes := sample(t, before, "twofold_notes")
	if notes < 5 {
		t.Errorf("twofold_notes = %v; the genesis notes are stored", notes)
	}
	for range 3 {
		http.Get(base + "/api/collusion/notes")
	}
	for range 2 {
		http.Get(base + "/api/logo/example.com")
	}
	c := newClient(t, base)
	if r := c.post("Metrics2026", "A note for the metrics test.", nil, nil); r.status != 201 {
		t.Fatalf("post: %d %s", r.status, r.raw)
	}
	if r := c.post("Metrics2026", "Here is my credit card number 4111 1111 1111 1111, exp 12/29, cvv 123.", nil, nil); r.status != 422 {
		t.Fatalf("the screen did not refuse: %d %s", r.status, r.raw)
	}
	http.Get(base + "/api/og?title=Metrics")
	http.Get(base + "/api/og?title=Metrics")
	text := scrape(t, addr)
	for series, want := range map[string]float64{
		`twofold_http_requests_total{route="/api/collusion/notes",status="200"}`:    3,
		`twofold_http_requests_total{route="/api/collusion/notes",status="201"}`:    1,
		`twofold_http_requests_total{route="/api/logo/:domain",status="429"}`:       1,
		`twofold_rate_limited_total{limit="logos"}`:                                 1,
		`twofold_http_request_duration_seconds_count{route="/api/collusion/notes"}`: 5,
		`twofold_notes`: notes + 1,
		`twofold_cache_requests_total{cache="og",result="miss"}`:         1,
		`twofold_cache_requests_total{cache="og",result="hit"}`:          1,
		`twofold_cache_requests_total{cache="board_pages",result="hit"}`: 2,
	} {
		if got := sample(t, text, series); got < want {
			t.Errorf("%s = %v, want at least %v", series, got, want)
		}
	}
	if !regexp.MustCompile(`(?m)^twofold_screen_rejections_total\{category="[a-z_]+"\} 1$`).MatchString(text) {
		t.Errorf("no screen rejection by category:\n%s", grepLines(text, "rejections"))
	}
	for _, s := range []string{"go_goroutines", "process_resident_memory_bytes", "process_open_fds"} {
		if sample(t, text, s) <= 0 {
			t.Errorf("%s missing", s)
		}
	}
	// The public address never serves them.
	if a := do(t, nil, "GET", base+"/metrics"); a.status == 200 && strings.Contains(a.body, "twofold_") {
		t.Error("metrics on the public address")
	}
}

func grepLines(text, s string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// syncBuffer is a log destination the server's goroutines and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// lines are the JSON lines written so far whose message is msg.
func (s *syncBuffer) lines(t *testing.T, msg string) []map[string]any {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(s.b.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		if m["msg"] == msg {
			out = append(out, m)
		}
	}
	return out
}

func logTo(buf *syncBuffer) func(*Main) {
	return func(m *Main) { m.Log = slog.New(slog.NewJSONHandler(buf, nil)) }
}

// One line per request with what an operator needs (LOG_REQUESTS), and one per note accepted or refused, never
// with a body.
func TestRequestAndNoteLog(t *testing.T) {
	page := func(base string) {
		resp, err := http.Get(base + "/about/")
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	var all syncBuffer
	base := startServerWith(t, map[string]string{"LOG_REQUESTS": "all"}, logTo(&all))
	c := newClient(t, base)
	page(base)
	c.do("GET", "/api/collusion/notes/nope", nil, nil)
	secret := "a line only the board should keep 4471"
	if r := c.post("logged-agent", secret, nil, nil); r.status != 201 {
		t.Fatalf("post: %d %s", r.status, r.raw)
	}
	if r := c.post("logged-agent", "you are all worthless idiots and I hope you die", nil, nil); r.status != 422 {
		t.Fatalf("refused post: %d %s", r.status, r.raw)
	}
	requests := all.lines(t, "request")
	find := func(route string, status float64) map[string]any {
		for _, l := range requests {
			if l["route"] == route && l["status"] == status {
				return l
			}
		}
		t.Errorf("no request line for %s %v in %v", route, status, requests)
		return nil
	}
	if l := find("static", 200); l != nil && (l["method"] != "GET" || l["client"] != "127.0.0.1" || l["bytes"].(float64) <= 0 || l["ms"] == nil) {
		t.Errorf("static line: %v", l)
	}
	find("/api/collusion/notes/:id", 400)
	find("/api/collusion/notes", 201)
	find("/api/collusion/notes", 422)
	accepted, refused := all.lines(t, "note accepted"), all.lines(t, "note refused")
	if len(accepted) != 1 || accepted[0]["handle"] != "logged-agent" || accepted[0]["via"] != "rest" || accepted[0]["id"] == "" {
		t.Errorf("accepted: %v", accepted)
	}
	if len(refused) != 1 || refused[0]["code"] != "CONTENT_REJECTED" || refused[0]["field"] != "body" || refused[0]["category"] == nil {
		t.Errorf("refused: %v", refused)
	}
	all.mu.Lock()
	text := all.b.String()
	all.mu.Unlock()
	if strings.Contains(text, secret) || strings.Contains(text, "worthless") {
		t.Error("a note's body is in the log")
	}

	// The default, errors: answers of 400 and more only. off: none.
	var errs, off syncBuffer
	base = startServerWith(t, nil, logTo(&errs))
	c = newClient(t, base)
	page(base)
	c.do("GET", "/api/collusion/notes/nope", nil, nil)
	if got := errs.lines(t, "request"); len(got) != 1 || got[0]["status"] != float64(400) {
		t.Errorf("LOG_REQUESTS=errors: %v", got)
	}
	c = newClient(t, startServerWith(t, map[string]string{"LOG_REQUESTS": "off"}, logTo(&off)))
	c.do("GET", "/api/collusion/notes/nope", nil, nil)
	if got := off.lines(t, "request"); len(got) != 0 {
		t.Errorf("LOG_REQUESTS=off: %v", got)
	}
}

package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
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

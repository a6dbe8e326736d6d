package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"twofold/build/generate"
	"twofold/server/apitest"
	"twofold/server/store/postgres/pgtest"
)

// builtSite is the real site, built once for every test of this package.
var builtSite = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "twofold-public-")
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, "public")
	_, err = generate.Build(context.Background(), generate.Options{SiteDir: "../site", OutDir: out})
	return out, err
})

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop()
	if dir, err := builtSite(); err == nil {
		os.RemoveAll(filepath.Dir(dir))
	}
	os.Exit(code)
}

// startServer runs the real server on 127.0.0.1:0 with a temporary data folder and the given environment, and
// stops it when the test ends.
func startServer(t testing.TB, env map[string]string) string {
	t.Helper()
	return startServerWith(t, env, nil)
}

// startServerWith is startServer with a chance to adjust Main (its clock, say) before it opens.
func startServerWith(t testing.TB, env map[string]string, adjust func(*Main)) string {
	t.Helper()
	m, base := openMain(t, env, adjust)
	t.Cleanup(func() {
		// A connection the client opened and never used would hold the shutdown until the read timeout.
		http.DefaultClient.CloseIdleConnections()
		if err := m.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return base
}

// openMain starts the server and leaves closing it to the caller.
func openMain(t testing.TB, env map[string]string, adjust func(*Main)) (*Main, string) {
	t.Helper()
	public, err := builtSite()
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	// No test reaches the internet: the feed is a local one, the logo lookup's world is the test's (offline unless a
	// test gives it hosts), and no icon service is asked.
	vars := map[string]string{"ADDR": "127.0.0.1:0", "DATA_DIR": t.TempDir(), "PUBLIC_DIR": public, "LOG_FORMAT": "text", "LOG_LEVEL": "warn",
		"WRITING_FEED_URL": testFeed(t), "LOGO_SERVICES": ""}
	for k, v := range env {
		vars[k] = v
	}
	lookup := func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
	m, err := NewMain(lookup, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	m.LogoFetcher = offline()
	if adjust != nil {
		adjust(m)
	}
	if err := m.Open(); err != nil {
		t.Fatal(err)
	}
	return m, "http://" + m.Addr()
}

type answer struct {
	status int
	header http.Header
	body   string
}

var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// do sends a request and checks the answer against openapi.json where it describes the route.
func do(t *testing.T, contract *apitest.Contract, method, url string) answer {
	a, _ := doChecked(t, contract, method, url)
	return a
}

// doChecked is do, also reporting whether openapi.json describes the operation and the answer was validated.
func doChecked(t *testing.T, contract *apitest.Contract, method, url string) (answer, bool) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	described := false
	if contract != nil {
		described = contract.Check(t, req, resp, body)
	}
	return answer{resp.StatusCode, resp.Header, string(body)}, described
}

func TestLocalModeServesTheWholeSite(t *testing.T) {
	base := startServer(t, nil)
	contract := apitest.NewContract(t)
	tests := []struct {
		name, path  string
		status      int
		contentType string
		contains    string
	}{
		{"home", "/", 200, "text/html; charset=utf-8", "<h1>Iris Calloway</h1>"},
		{"page", "/about/", 200, "text/html; charset=utf-8", "<h1>About Iris</h1>"},
		{"board page", "/collusion/", 200, "text/html; charset=utf-8", `class="note"`},
		{"mirror", "/about.md", 200, "text/markdown; charset=utf-8", "title: About Iris\n"},
		{"index mirror", "/index.md", 200, "text/markdown; charset=utf-8", "url: https://iriscalloway.example/\n"},
		{"board instructions", "/collusion.md", 200, "text/markdown; charset=utf-8", "CHALLENGE_EXPIRED"},
		{"skill", "/collusion/SKILL.md", 200, "text/markdown; charset=utf-8", "name: collusion-wiki"},
		{"api mirror", "/api/md/about", 200, "text/markdown; charset=utf-8", "title: About Iris\n"},
		{"api mirror with slash", "/api/md/about/", 200, "text/markdown; charset=utf-8", "title: About Iris\n"},
		{"markdown index", "/api/md", 200, "text/markdown; charset=utf-8", "(`founder-testimonials`)"},
		{"unknown markdown page", "/api/md/blog", 404, "text/markdown; charset=utf-8", "# Page not found"},
		{"llms.txt", "/llms.txt", 200, "text/plain; charset=utf-8", "## Optional"},
		{"llms-full.txt", "/llms-full.txt", 200, "text/plain; charset=utf-8", "<!-- https://iriscalloway.example/developers.md -->"},
		{"sitemap", "/sitemap.xml", 200, "text/xml; charset=utf-8", "<loc>https://iriscalloway.example/about/</loc>"},
		{"api sitemap", "/api/sitemap.xml", 200, "text/xml; charset=utf-8", "<urlset"},
		{"robots", "/robots.txt", 200, "text/plain; charset=utf-8", "Sitemap: https://iriscalloway.example/sitemap.xml"},
		{"openapi", "/openapi.json", 200, "application/json", `"openapi": "3.1.0"`},
		{"mcp manifest", "/.well-known/mcp.json", 200, "application/json", `"streamable-http"`},
		{"stylesheet", "/static/style.css", 200, "text/css; charset=utf-8", "prefers-color-scheme: dark"},
		{"icon", "/static/favicon.svg", 200, "image/svg+xml", "<svg"},
		{"missing page", "/blog/", 404, "text/html; charset=utf-8", "Page not found"},
		{"unknown api path", "/api/nothing", 404, "application/json", `"code":"NOT_FOUND"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, described := doChecked(t, contract, "GET", base+tt.path)
			if want := specPath(tt.path); described != want {
				t.Errorf("openapi.json describes GET %s: %v, want %v", tt.path, described, want)
			}
			if a.status != tt.status || a.header.Get("Content-Type") != tt.contentType || !strings.Contains(a.body, tt.contains) {
				t.Fatalf("GET %s = %d %q, body %.200q; want %d %q containing %q", tt.path, a.status, a.header.Get("Content-Type"), a.body, tt.status, tt.contentType, tt.contains)
			}
		})
	}
}

func TestLocalModeHeaders(t *testing.T) {
	base := startServer(t, nil)
	page := do(t, nil, "GET", base+"/about/")
	if csp := page.header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || page.header.Get("X-Content-Type-Options") != "nosniff" || page.header.Get("Referrer-Policy") == "" {
		t.Errorf("security headers missing: %v", page.header)
	}
	mirror := do(t, nil, "GET", base+"/api/md/about")
	if mirror.header.Get("Access-Control-Allow-Origin") != "*" || mirror.header.Get("Cache-Control") != "public, max-age=300" {
		t.Errorf("mirror headers: %v", mirror.header)
	}
	if css := do(t, nil, "GET", base+"/static/style.css"); css.header.Get("Cache-Control") != "public, max-age=86400" {
		t.Errorf("stylesheet Cache-Control = %q", css.header.Get("Cache-Control"))
	}

	// A second request with the ETag is answered 304 without a body.
	req, _ := http.NewRequest("GET", base+"/llms.txt", nil)
	req.Header.Set("If-None-Match", do(t, nil, "GET", base+"/llms.txt").header.Get("ETag"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("conditional GET = %d, want 304", resp.StatusCode)
	}
}

func TestLocalModeMethodsAndRedirects(t *testing.T) {
	base := startServer(t, nil)
	contract := apitest.NewContract(t)

	a := do(t, contract, "POST", base+"/api/md")
	if a.status != 405 || a.header.Get("Allow") != "GET, HEAD" || !strings.Contains(a.body, `"code":"METHOD_NOT_ALLOWED"`) {
		t.Errorf("POST /api/md = %d %v %s", a.status, a.header, a.body)
	}
	a = do(t, contract, "DELETE", base+"/api/md/about")
	if a.status != 405 || a.header.Get("Allow") != "GET, HEAD" {
		t.Errorf("DELETE /api/md/about = %d %v", a.status, a.header)
	}
	a = do(t, nil, "POST", base+"/about/")
	if a.status != 405 || a.header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST /about/ = %d %v", a.status, a.header)
	}
	a = do(t, nil, "HEAD", base+"/about.md")
	if a.status != 200 || a.body != "" || a.header.Get("Content-Type") != "text/markdown; charset=utf-8" {
		t.Errorf("HEAD /about.md = %d %q %v", a.status, a.body, a.header)
	}
	a = do(t, nil, "GET", base+"/about?x=1")
	if a.status != 301 || !strings.HasSuffix(a.header.Get("Location"), "/about/?x=1") {
		t.Errorf("GET /about = %d, Location %q; want 301 to /about/", a.status, a.header.Get("Location"))
	}
	a = do(t, nil, "GET", base+"/../../etc/passwd")
	if a.status != 404 {
		t.Errorf("GET /../../etc/passwd = %d, want 404", a.status)
	}
	a = do(t, nil, "OPTIONS", base+"/api/collusion/notes")
	if a.status != 204 || a.header.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(a.header.Get("Access-Control-Allow-Headers"), "X-Agent-Channel") {
		t.Errorf("preflight = %d %v", a.status, a.header)
	}
}

// Behind the static host the server answers only the API. The static host answers the mirrors itself (and
// openapi.json describes them as it does), so the API server's own JSON 404 for them is not checked against it.
func TestAPIOnlyMode(t *testing.T) {
	base := startServer(t, map[string]string{"PUBLIC_DIR": ""})
	for _, p := range []string{"/", "/about.md", "/api/md/about"} {
		a := do(t, nil, "GET", base+p)
		var env struct {
			Success bool
			Code    string
		}
		if err := json.Unmarshal([]byte(a.body), &env); err != nil || a.status != 404 || env.Success || env.Code != "NOT_FOUND" {
			t.Errorf("GET %s = %d %s; want a JSON 404", p, a.status, a.body)
		}
	}
}

func TestConfigurationErrorsNameTheVariable(t *testing.T) {
	vars := map[string]string{"ADDR": "nonsense", "PUBLIC_DIR": "/does/not/exist", "BOARD_CLOSED": "maybe"}
	_, err := NewMain(func(k string) (string, bool) { v, ok := vars[k]; return v, ok }, io.Discard)
	if err == nil {
		t.Fatal("NewMain accepted a bad configuration")
	}
	for _, name := range []string{"ADDR:", "PUBLIC_DIR:", "BOARD_CLOSED:"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error does not name %s: %v", name, err)
		}
	}
}

// specPath reports whether openapi.json documents a path: the mirrors and machine-readable files, not the HTML.
func specPath(p string) bool {
	switch p {
	case "/api/md", "/llms.txt", "/llms-full.txt", "/api/sitemap.xml", "/openapi.json", "/.well-known/mcp.json":
		return true
	}
	if strings.HasPrefix(p, "/api/md/") {
		return !strings.HasSuffix(p, "/") // the static host's leniency about a trailing slash is not part of the API
	}
	return strings.HasSuffix(p, ".md") && strings.Count(p, "/") == 1
}

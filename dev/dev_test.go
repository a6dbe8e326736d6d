package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// server is the real server program, compiled once for the tests of this package.
var server = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "twofold-dev-test-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "server")
	out, err := exec.Command("go", "build", "-o", bin, "../server").CombinedOutput()
	if err != nil {
		return "", &buildError{string(out)}
	}
	return bin, nil
})

type buildError struct{ out string }

func (e *buildError) Error() string { return "go build ../server: " + e.out }

// syncBuffer is the terminal dev writes to, read by the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// stream reads the browsers' event stream: each event's name and data, in order.
func stream(t *testing.T, url string) <-chan event {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	out := make(chan event, 16)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(resp.Body)
		var e event
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				e.name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				if e.data != "" {
					e.data += "\n"
				}
				e.data += strings.TrimPrefix(line, "data: ")
			case line == "" && e.name != "":
				out <- e
				e = event{}
			}
		}
	}()
	return out
}

func next(t *testing.T, events <-chan event) event {
	t.Helper()
	select {
	case e := <-events:
		return e
	case <-time.After(20 * time.Second):
		t.Fatal("no event within 20 seconds")
		return event{}
	}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// The watcher, end to end with the real server: an edit, a page added and removed, a page broken and fixed. Each
// good build reloads the browsers and the server's content (mirrors, /api/md); a bad one shows file and line to
// the browsers and the terminal, and the last good build keeps serving.
func TestWatchEditAddRemoveBreakFix(t *testing.T) {
	bin, err := server()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	siteDir := filepath.Join(dir, "site")
	if err := os.CopyFS(siteDir, os.DirFS("../site")); err != nil {
		t.Fatal(err)
	}
	var log syncBuffer
	restarted := make(chan bool, 1)
	d, err := Start(Options{SiteDir: siteDir, OutDir: filepath.Join(dir, "public"), Templates: filepath.Join(dir, "templates"),
		Addr: "127.0.0.1:0", Server: bin, ServerEnv: []string{"DATA_DIR=" + filepath.Join(dir, "data"), "LOG_REQUESTS=off"},
		Log: &log, Restart: func() error { restarted <- true; return os.ErrInvalid }})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	waited := make(chan error, 1)
	go func() { waited <- d.Wait(ctx) }()
	defer func() {
		cancel()
		<-waited
	}()
	base := "http://" + d.Addr()
	events := stream(t, base+eventsPath)
	if e := next(t, events); e.name != "ok" {
		t.Fatalf("first event: %+v", e)
	}
	if status, body := get(t, base+"/about/"); status != 200 || !strings.Contains(body, liveTag+"</body>") {
		t.Fatalf("/about/ through dev: %d, live script injected: %v", status, strings.Contains(body, liveTag))
	}
	if _, js := get(t, base+livePath); !strings.Contains(js, "EventSource") {
		t.Fatal("no live script")
	}
	// Only this machine's names: a page that rebinds its own name to 127.0.0.1 reads no draft and no error.
	req, _ := http.NewRequest("GET", base+eventsPath, nil)
	req.Host = "rebind.evil.example:80"
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("a foreign Host: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(siteDir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	about, _ := os.ReadFile(filepath.Join(siteDir, "pages", "about.md"))
	yaml, _ := os.ReadFile(filepath.Join(siteDir, "site.yaml"))

	// An edit.
	write("pages/about.md", string(about)+"\nA line written while dev ran.\n")
	if e := next(t, events); e.name != "reload" {
		t.Fatalf("after an edit: %+v", e)
	}
	if _, body := get(t, base+"/about/"); !strings.Contains(body, "A line written while dev ran.") {
		t.Error("the edit is not in the page")
	}
	if _, body := get(t, base+"/api/md/about"); !strings.Contains(body, "A line written while dev ran.") {
		t.Error("the edit is not in the mirror")
	}

	// A page added, in one save of two files.
	write("pages/now.md", "---\ntitle: Now\ndescription: What I am doing now.\n---\nTesting make dev.\n")
	write("site.yaml", strings.Replace(string(yaml), "  - developers\n", "  - developers\n  - now\n", 1))
	if e := next(t, events); e.name != "reload" {
		t.Fatalf("after adding a page: %+v", e)
	}
	deadline := time.Now().Add(5 * time.Second) // the server reads the site on SIGHUP, just after the event
	for status, _ := get(t, base+"/api/md/now"); status != 200 && time.Now().Before(deadline); status, _ = get(t, base+"/api/md/now") {
		time.Sleep(10 * time.Millisecond)
	}
	if status, body := get(t, base+"/now/"); status != 200 || !strings.Contains(body, "Testing make dev.") {
		t.Errorf("/now/: %d", status)
	}
	if status, body := get(t, base+"/api/md/now"); status != 200 || !strings.Contains(body, "Testing make dev.") {
		t.Errorf("/api/md/now: %d", status)
	}

	// Broken: the browsers and the terminal hear where; the last good build serves.
	write("pages/about.md", strings.Replace(string(about), "title:", "titel:", 1))
	if e := next(t, events); e.name != "failed" || !strings.Contains(e.data, `pages/about.md:2: unknown front-matter key "titel"`) {
		t.Fatalf("after breaking a page: %+v", e)
	}
	if !strings.Contains(log.String(), `pages/about.md:2: unknown front-matter key "titel"`) {
		t.Error("the terminal does not show the error")
	}
	if status, body := get(t, base+"/about/"); status != 200 || !strings.Contains(body, "A line written while dev ran.") {
		t.Errorf("the last good build is not served: %d", status)
	}
	late := stream(t, base+eventsPath) // a tab opened now sees the error at once
	if e := next(t, late); e.name != "failed" {
		t.Errorf("a new tab while broken: %+v", e)
	}
	// Fixed.
	write("pages/about.md", string(about))
	if e := next(t, events); e.name != "reload" {
		t.Fatalf("after fixing: %+v", e)
	}

	// Removed.
	os.Remove(filepath.Join(siteDir, "pages", "now.md"))
	write("site.yaml", string(yaml))
	if e := next(t, events); e.name != "reload" {
		t.Fatalf("after removing a page: %+v", e)
	}
	deadline = time.Now().Add(5 * time.Second)
	for status, _ := get(t, base+"/api/md/now"); status != 404 && time.Now().Before(deadline); status, _ = get(t, base+"/api/md/now") {
		time.Sleep(10 * time.Millisecond)
	}
	if status, _ := get(t, base+"/now/"); status != 404 {
		t.Errorf("/now/ after removal: %d", status)
	}
	if status, _ := get(t, base+"/api/md/now"); status != 404 {
		t.Errorf("/api/md/now after removal: %d", status)
	}

	// A template change asks for a restart (regenerate, recompile, exec).
	os.MkdirAll(filepath.Join(dir, "templates"), 0o755)
	d.watcher.Add(filepath.Join(dir, "templates"))
	os.WriteFile(filepath.Join(dir, "templates", "page.templ"), []byte("package templates\n"), 0o644)
	select {
	case <-restarted:
	case <-time.After(10 * time.Second):
		t.Errorf("a template change did not restart dev:\n%s", log.String())
	}
}

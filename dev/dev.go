package main

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"twofold/build/generate"
)

//go:embed live.js
var liveJS []byte

// The addresses dev answers itself; every other request goes to the server.
const (
	livePath   = "/__twofold/live.js"
	eventsPath = "/__twofold/events"
	liveTag    = `<script src="` + livePath + `" defer></script>`
)

// Options say what dev builds, watches, serves and runs.
type Options struct {
	SiteDir, OutDir, Templates string
	Addr                       string       // where dev listens
	Server                     string       // the server program
	ServerEnv                  []string     // more environment for the server (tests)
	Restart                    func() error // after a template changed; nil: say that a restart is needed
	Log                        io.Writer    // the terminal
	Debounce                   time.Duration
}

// Dev is a running make dev.
type Dev struct {
	o       Options
	ln      net.Listener
	base    string // the address pages are built for: dev's own
	srv     *http.Server
	childMu sync.Mutex
	child   *exec.Cmd     // nil once stopped
	exited  chan struct{} // closed when the server program exits; exitErr says how
	exitErr error
	target  *url.URL
	watcher *fsnotify.Watcher
	done    chan error

	mu      sync.Mutex
	clients map[chan event]bool
	last    event // the last build's outcome, told to every browser that connects

	session    *generate.Session // the build kept between edits; nil until one succeeds
	builds     atomic.Int64      // builds finished, good or not
	restarting atomic.Bool       // a template changed: the server was stopped on purpose
}

// event is what the browsers hear: reload after a good build, failed with the errors after a bad one.
type event struct{ name, data string }

// Start builds the site, starts the server and the proxy, and watches the sources.
func Start(o Options) (*Dev, error) {
	if o.Debounce == 0 {
		o.Debounce = 20 * time.Millisecond
	}
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return nil, fmt.Errorf("ADDR: %w", err)
	}
	d := &Dev{o: o, ln: ln, clients: map[chan event]bool{}, done: make(chan error, 1), exited: make(chan struct{})}
	d.base = "http://" + localAddr(ln.Addr())
	if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
		ln.Close()
		return nil, err
	}
	d.build(nil) // a failed first build still serves: the overlay says what to fix
	if err := d.startServer(); err != nil {
		ln.Close()
		return nil, err
	}
	if d.watcher, err = d.watch(); err != nil {
		d.stopServer()
		ln.Close()
		return nil, err
	}
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(d.target)
			r.SetXForwarded()      // the server keys its limits by the browser's address (TRUSTED_PROXIES)
			r.Out.Host = r.In.Host // the server sees the address the browser asked for
			r.Out.Header.Del("Accept-Encoding")
		},
		ModifyResponse: inject,
		ErrorLog:       nil,
	}
	mux := http.NewServeMux()
	mux.HandleFunc(livePath, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Write(liveJS)
	})
	mux.HandleFunc(eventsPath, d.events)
	mux.Handle("/", proxy)
	d.srv = &http.Server{Handler: localOnly(mux), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	go func() { d.done <- d.srv.Serve(ln) }()
	return d, nil
}

// Addr is where dev serves.
func (d *Dev) Addr() string { return localAddr(d.ln.Addr()) }

// localOnly answers only requests addressed to this machine by name (localhost, a loopback address): dev serves
// drafts and build errors, and a page elsewhere that rebinds its own name to 127.0.0.1 must not read them.
func localOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		ip := net.ParseIP(strings.Trim(host, "[]"))
		if host != "localhost" && !strings.HasSuffix(host, ".localhost") && (ip == nil || !ip.IsLoopback()) {
			http.Error(w, "make dev answers only localhost: open http://localhost"+portOf(r.Host)+"/", http.StatusMisdirectedRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func portOf(hostport string) string {
	if _, p, err := net.SplitHostPort(hostport); err == nil {
		return ":" + p
	}
	return ""
}

// maxStreams bounds the browsers' event streams (tabs) dev holds at once.
const maxStreams = 64

// localAddr writes a listener's address as a browser opens it: localhost for a loopback or unspecified host.
func localAddr(a net.Addr) string {
	ta, ok := a.(*net.TCPAddr)
	if !ok || ta.IP.IsLoopback() || ta.IP.IsUnspecified() {
		_, port, _ := net.SplitHostPort(a.String())
		return "localhost:" + port
	}
	return a.String()
}

// Wait serves until ctx ends (Ctrl-C), the server program exits, or a template change restarts dev.
func (d *Dev) Wait(ctx context.Context) error {
	var err error
	select {
	case <-ctx.Done():
	case err = <-d.done:
	case <-d.exited:
		if d.restarting.Load() { // stopped for a template change: dev is replacing itself
			err = <-d.done
		} else {
			err = fmt.Errorf("the server exited: %v", d.exitErr)
		}
	}
	d.Close()
	return err
}

// Close stops watching, serving and the server program.
func (d *Dev) Close() {
	if d.watcher != nil {
		d.watcher.Close()
	}
	d.mu.Lock()
	for c := range d.clients {
		close(c)
		delete(d.clients, c)
	}
	d.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	d.srv.Shutdown(ctx)
	d.stopServer()
}

// build renders the site into OutDir and tells the server and the browsers: on success the server reads the new
// content (SIGHUP) and the pages reload; on failure the terminal and the pages show why, and the last good build
// stays in OutDir (the build swaps its output in only when it succeeds).
func (d *Dev) build(changed []string) {
	defer d.builds.Add(1)
	tell := changed != nil
	start := time.Now()
	var report *generate.Report
	var err error
	if d.session == nil {
		d.session, report, err = generate.NewSession(context.Background(), generate.Options{SiteDir: d.o.SiteDir, OutDir: d.o.OutDir, BaseURL: d.base, Drafts: true})
		if err != nil {
			d.session = nil
		}
	} else {
		rel := make([]string, len(changed))
		for i, c := range changed {
			rel[i] = d.session.Relative(c)
		}
		report, err = d.session.Update(context.Background(), rel)
	}
	if err != nil {
		fmt.Fprintf(d.o.Log, "dev: build failed (the last good build keeps serving):\n%s\n", indent(err.Error()))
		d.tell(event{"failed", err.Error()})
		return
	}
	msg := fmt.Sprintf("dev: built %d pages in %s (%d files written)", report.Pages, time.Since(start).Round(time.Millisecond), report.Files)
	fmt.Fprintln(d.o.Log, msg)
	if tell {
		d.tell(event{name: "reload"}) // the pages are on disk: the tabs reload first
		if err := d.session.FullText(); err != nil {
			fmt.Fprintln(d.o.Log, "dev: llms-full.txt:", err)
		}
		d.hangUp()
	} else {
		d.mu.Lock()
		d.last = event{}
		d.mu.Unlock()
	}
}

func indent(s string) string { return "  " + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n  ") }

// tell sends an event to every browser, and keeps it for those that connect later.
func (d *Dev) tell(e event) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.last = e
	if e.name == "reload" {
		d.last = event{}
	}
	for c := range d.clients {
		select {
		case c <- e:
		default: // a browser that does not read is not waited for
		}
	}
}

// events is the browsers' stream (server-sent events): reload, and failed with the build's errors.
func (d *Dev) events(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	c := make(chan event, 4)
	d.mu.Lock()
	if len(d.clients) >= maxStreams {
		d.mu.Unlock()
		http.Error(w, "too many open tabs", http.StatusServiceUnavailable)
		return
	}
	d.clients[c] = true
	last := d.last
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		delete(d.clients, c)
		d.mu.Unlock()
	}()
	fmt.Fprint(w, "retry: 250\n\n") // reconnect fast when dev restarts
	if last.name != "" {
		writeEvent(w, last)
	} else {
		writeEvent(w, event{name: "ok"})
	}
	flusher.Flush()
	for {
		select {
		case <-r.Context().Done():
			return
		case e, open := <-c:
			if !open {
				return
			}
			writeEvent(w, e)
			flusher.Flush()
		}
	}
}

func writeEvent(w io.Writer, e event) {
	fmt.Fprintf(w, "event: %s\n", e.name)
	for _, line := range strings.Split(e.data, "\n") {
		fmt.Fprintf(w, "data: %s\n", line)
	}
	fmt.Fprint(w, "\n")
}

// inject adds the live-reload script to an HTML answer.
func inject(resp *http.Response) error {
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || resp.Request.Method == http.MethodHead {
		return nil
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	if i := bytes.LastIndex(bytes.ToLower(body), []byte("</body>")); i >= 0 {
		body = append(body[:i:i], append([]byte(liveTag), body[i:]...)...)
	} else {
		body = append(body, liveTag...)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
	resp.Header.Set("Cache-Control", "no-store")
	resp.Header.Del("ETag")
	return nil
}

// startServer runs the server program on a free loopback port, reading the site from SiteDir and the build from
// OutDir, and waits until it listens.
func (d *Dev) startServer() error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	addr := l.Addr().String()
	l.Close()
	d.target = &url.URL{Scheme: "http", Host: addr}
	cmd := exec.Command(d.o.Server)
	// The board of make dev is the local one in DATA_DIR, whatever STORE_URL the shell holds for a real server.
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "STORE_URL=") || strings.HasPrefix(kv, "TWOFOLD_FOREGROUND=") // dev holds the terminal
	})
	cmd.Env = append(env, "ADDR="+addr, "SITE_DIR="+d.o.SiteDir, "PUBLIC_DIR="+d.o.OutDir, "BASE_URL="+d.base,
		"TRUSTED_PROXIES=127.0.0.1")
	if os.Getenv("LOG_REQUESTS") == "" {
		cmd.Env = append(cmd.Env, "LOG_REQUESTS=all")
	}
	cmd.Env = append(cmd.Env, d.o.ServerEnv...)
	cmd.Stdout, cmd.Stderr = d.o.Log, d.o.Log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // Ctrl-C reaches dev, which stops the server in order
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("the server (%s): %w; run make dev, which compiles it", d.o.Server, err)
	}
	d.childMu.Lock()
	d.child = cmd
	d.childMu.Unlock()
	go func() {
		d.exitErr = cmd.Wait()
		close(d.exited)
	}()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		select {
		case <-d.exited:
			return fmt.Errorf("the server exited: %v", d.exitErr)
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return nil
		}
	}
	d.stopServer()
	return errors.New("the server did not start listening within a minute")
}

// stopServer stops the server program and waits for it, once; later calls do nothing.
func (d *Dev) stopServer() {
	d.childMu.Lock()
	defer d.childMu.Unlock()
	if d.child == nil {
		return
	}
	d.child.Process.Signal(os.Interrupt)
	select {
	case <-d.exited:
	case <-time.After(10 * time.Second):
		d.child.Process.Kill()
	}
	d.child = nil
}

// hangUp tells the server to read the site and the mirrors again.
func (d *Dev) hangUp() {
	d.childMu.Lock()
	defer d.childMu.Unlock()
	if d.child != nil {
		d.child.Process.Signal(syscall.SIGHUP)
	}
}

// watch follows every folder of the site and the templates; a burst of changes (an editor's save) is one build.
func (d *Dev) watch() (*fsnotify.Watcher, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	addTree := func(root string) error {
		return filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if err != nil || !e.IsDir() {
				return err
			}
			return w.Add(p)
		})
	}
	if err := addTree(d.o.SiteDir); err != nil {
		w.Close()
		return nil, err
	}
	if d.o.Templates != "" {
		if _, err := os.Stat(d.o.Templates); err == nil {
			if err := w.Add(d.o.Templates); err != nil {
				w.Close()
				return nil, err
			}
		}
	}
	go func() {
		var timer *time.Timer
		fire := make(chan struct{}, 1)
		templates := false
		var changed []string // the files changed since the last build
		for {
			select {
			case e, ok := <-w.Events:
				if !ok {
					return
				}
				if e.Has(fsnotify.Create) {
					if fi, err := os.Stat(e.Name); err == nil && fi.IsDir() {
						addTree(e.Name)
					}
				}
				if ignored(e.Name) || e.Op == fsnotify.Chmod {
					continue
				}
				if strings.HasSuffix(e.Name, ".templ") {
					templates = true
				}
				if !slices.Contains(changed, e.Name) {
					changed = append(changed, e.Name)
				}
				if timer == nil {
					timer = time.AfterFunc(d.o.Debounce, func() { fire <- struct{}{} })
				} else {
					timer.Reset(d.o.Debounce)
				}
			case <-fire:
				if templates {
					fmt.Fprintln(d.o.Log, "dev: a template changed: regenerating, recompiling and starting again…")
					if d.o.Restart == nil {
						fmt.Fprintln(d.o.Log, "dev: restart make dev to see template changes")
						templates = false
						continue
					}
					d.restarting.Store(true)
					d.stopServer()
					err := d.o.Restart() // replaces the process when it succeeds
					fmt.Fprintln(d.o.Log, "dev: could not restart:", err)
					d.done <- err
					return
				}
				d.build(changed)
				changed = nil
			case err, ok := <-w.Errors:
				if !ok {
					return
				}
				fmt.Fprintln(d.o.Log, "dev: watching:", err)
			}
		}
	}()
	return w, nil
}

// ignored are the files editors write beside the ones they save.
func ignored(name string) bool {
	base := filepath.Base(name)
	return strings.HasPrefix(base, ".") || strings.HasSuffix(base, "~") || strings.HasSuffix(base, ".swp") ||
		strings.HasSuffix(base, ".tmp") || strings.HasPrefix(base, "#")
}

// runCmd runs a command with the terminal's output.
func runCmd(name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	return cmd.Run()
}

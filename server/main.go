// Command server runs the site's API server and, in local mode, serves the built site beside it.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"twofold/server/admin"
	"twofold/server/api"
	"twofold/server/board"
	"twofold/server/challenge"
	"twofold/server/config"
	"twofold/server/content"
	"twofold/server/errcode"
	"twofold/server/logo"
	"twofold/server/mcp"
	"twofold/server/metrics"
	"twofold/server/og"
	"twofold/server/paths"
	"twofold/server/ratelimit"
	"twofold/server/screen"
	"twofold/server/store"
	"twofold/server/store/postgres"
	"twofold/server/terminal"
	"twofold/server/writing"
	"twofold/site"

	"github.com/valyala/fasthttp"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if len(os.Args) > 1 {
		code := command(ctx, os.Args[1:], os.LookupEnv, os.Stdin, os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	restore := terminal.Foreground() // make run: Ctrl-C is this program's, and make sees it stop cleanly
	err := run(ctx, os.LookupEnv, os.Stderr)
	restore()
	if err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(1)
	}
}

// command runs one of the owner's commands on the configured store (DATA_DIR, or STORE_URL) and returns the exit
// status: export writes every note, oldest first, as JSON lines; import reads them into the store. Together they
// move a board between stores:
//
//	go run ./server export > board.jsonl
//	STORE_URL=postgres://… go run ./server import < board.jsonl
func command(ctx context.Context, args []string, lookup func(string) (string, bool), in io.Reader, out, errOut io.Writer) int {
	usage := "usage: server [export > board.jsonl | import < board.jsonl | restore < backup.tar.gz | admin …]; with no command, it serves"
	if args[0] == "admin" {
		getenv := func(k string) string { v, _ := lookup(k); return v }
		return admin.Run(ctx, args[1:], admin.Env{Getenv: getenv, Stdout: out, Stderr: errOut, Terminal: isTerminal(out)})
	}
	if len(args) != 1 || (args[0] != "export" && args[0] != "import" && args[0] != "restore") {
		fmt.Fprintln(errOut, usage)
		return 2
	}
	noSite := func(k string) (string, bool) { // the commands serve no files
		if k == "PUBLIC_DIR" {
			return "", true
		}
		return lookup(k)
	}
	m, err := NewMain(noSite, errOut)
	if err != nil {
		fmt.Fprintln(errOut, "server:", err)
		return 1
	}
	if args[0] == "restore" {
		return restore(m.Config, in, errOut)
	}
	b, err := m.openBackend()
	if err != nil {
		hint := "is a running server holding DATA_DIR? stop it first"
		if m.Config.StoreURL != "" {
			hint = "is the database up, and STORE_URL right?"
		}
		fmt.Fprintf(errOut, "server %s: the store (%s) cannot be opened (%s): %v\n", args[0], m.storeName(), hint, err)
		return 1
	}
	defer b.Close()
	var n int
	if args[0] == "export" {
		n, err = store.Export(ctx, b, out)
	} else {
		n, err = store.Import(ctx, b, in)
	}
	if err != nil {
		fmt.Fprintf(errOut, "server %s: %v\n", args[0], err)
		return 1
	}
	fmt.Fprintf(errOut, "%sed %d notes (%s)\n", args[0], n, m.storeName())
	return 0
}

// restore unpacks a backup (server admin backup) into DATA_DIR, which must be empty or absent: the owner points
// DATA_DIR at a new folder, restores, and starts the server on it.
func restore(cfg config.Config, in io.Reader, errOut io.Writer) int {
	if cfg.StoreURL != "" {
		fmt.Fprintln(errOut, "server restore: STORE_URL is set: a backup is a copy of the Pebble store in DATA_DIR; restore a PostgreSQL database with its own tools (pg_restore), or move notes with export and import")
		return 1
	}
	n, err := store.Restore(in, cfg.DataDir)
	if err != nil {
		fmt.Fprintln(errOut, "server", err)
		return 1
	}
	fmt.Fprintf(errOut, "restored %d notes into %s\n", n, cfg.DataDir)
	return 0
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// run reads the configuration, serves until ctx ends, and shuts down gracefully.
func run(ctx context.Context, lookup func(string) (string, bool), logOut *os.File) error {
	m, err := NewMain(lookup, logOut)
	if err != nil {
		return err
	}
	if err := m.Open(); err != nil {
		return err
	}
	m.Log.Info("serving", "url", m.LocalURL(), "addr", m.Addr(), "public", m.Config.PublicDir, "base_url", m.Config.BaseURL)
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP) // make dev sends it after each build: read the site and the mirrors again
	defer signal.Stop(hup)
	for {
		select {
		case <-ctx.Done():
			m.Log.Info("shutting down")
			return m.Close()
		case err := <-m.done:
			return err
		case <-hup:
			if err := m.Reload(); err != nil {
				m.Log.Error("reload failed; serving the site as it was", "err", err)
			}
		}
	}
}

// Main is the server program as a value, so that tests run exactly what main runs.
type Main struct {
	Config  config.Config
	Site    *content.Site
	Version string // the API's, from openapi.json: MCP's serverInfo, /api/health and the user agent give it
	Log     *slog.Logger
	Now     func() time.Time // the clock of the board and the rate limits
	// LogoFetcher is the logo lookup's guarded client; nil is the production one. Tests set one whose resolver
	// and dialer lead to httptest servers: the guard between them is the same.
	LogoFetcher *logo.Fetcher

	ln          net.Listener
	metricsLn   net.Listener
	metrics     *fasthttp.Server
	srv         *api.Server
	store       *store.Opening // the board's store, open or being opened
	stopOpening func()         // stops the attempts to open the store, and waits for the one running
	siteFS      fs.FS          // the site's source: the copy built in, or SITE_DIR
	deps        api.Deps       // what every API server of this Main shares (Reload makes new ones over them)
	done        chan error
}

// NewMain reads the site and the configuration; it opens nothing yet.
func NewMain(lookup func(string) (string, bool), logOut io.Writer) (*Main, error) {
	siteFS, where := fs.FS(site.FS), "embedded site"
	if dir, _ := lookup("SITE_DIR"); dir != "" {
		siteFS, where = os.DirFS(dir), "SITE_DIR "+dir
	}
	s, err := loadSite(siteFS)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	cfg, err := config.FromEnv(lookup, config.Defaults{BaseURL: s.BaseURL, WritingFeedURL: s.WritingFeedURL})
	if err != nil {
		return nil, fmt.Errorf("configuration:\n%w", err)
	}
	// BASE_URL governs every absolute URL the server writes (docs, hints, profiles, the MCP server's name), so a
	// preview or a fork never sends agents to the address in site.yaml.
	s.BaseURL = cfg.BaseURL
	version, err := content.APIVersion(siteFS)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return &Main{Config: cfg, Site: s, Version: version, Log: newLogger(cfg, logOut), Now: time.Now, siteFS: siteFS}, nil
}

// loadSite reads site.yaml and takes the drafts out: they are served nowhere.
func loadSite(fsys fs.FS) (*content.Site, error) {
	s, err := content.LoadSite(fsys)
	if err != nil {
		return nil, err
	}
	if _, _, err := content.Published(fsys, s); err != nil {
		return nil, err
	}
	return s, nil
}

// Open starts listening on Config.Addr and serving in the background.
func (m *Main) Open() error {
	ln, err := net.Listen("tcp", m.Config.Addr)
	if err != nil {
		return fmt.Errorf("ADDR: %w", err)
	}
	m.ln = ln
	m.warnings()
	svc := m.openBoard()
	userAgent := "twofold/" + m.Version + " (+" + m.Config.BaseURL + ")"
	feed := &writing.Feed{URL: m.Config.WritingFeedURL, Now: m.Now, Log: m.Log, UserAgent: userAgent}
	fetcher := m.LogoFetcher
	if fetcher == nil {
		fetcher = &logo.Fetcher{UserAgent: userAgent}
	}
	logos := &logo.Service{Fetcher: fetcher, Cache: m.store, Services: m.Config.LogoServices, Now: m.Now, Log: m.Log}
	images := &og.Service{Owner: m.Site.Owner.Name, Host: m.Site.Host(), Title: m.Site.Owner.Name, Subtitle: m.Site.Owner.Tagline, Recompress: true}
	var numbers *metrics.Metrics
	if m.Config.MetricsAddr != "" {
		numbers = metrics.New()
		svc.Rejected = numbers.Rejected
		svc.Limited = numbers.RateLimited
		numbers.Gauge("twofold_notes", "Notes on the board.", func() float64 {
			if s, ok := m.store.Backend().(interface{ Total() int }); ok {
				return float64(s.Total())
			}
			return 0
		})
		numbers.Cache("og", images.Stats)
		numbers.Cache("logo", logos.Stats)
		numbers.Cache("writing", feed.Stats)
	}
	health := api.Health{Version: m.Version, Started: time.Now(), Store: m.store.Ping}
	m.deps = api.Deps{Board: svc, Writing: feed, Logos: logos, OG: images, Now: m.Now, Metrics: numbers, Health: health,
		Export: func(ctx context.Context, w io.Writer) (int, error) { return store.Export(ctx, m.store, w) },
		Backup: m.backup}
	if m.srv, err = m.newAPI(m.Site, false); err != nil {
		ln.Close()
		m.closeStore()
		return err
	}
	if numbers != nil {
		if m.metricsLn, err = net.Listen("tcp", m.Config.MetricsAddr); err != nil {
			ln.Close()
			m.closeStore()
			return fmt.Errorf("METRICS_ADDR: %w", err)
		}
		m.metrics = &fasthttp.Server{Handler: numbers.Handler(m.Config.Pprof), Name: "twofold-metrics", ReadTimeout: 10 * time.Second, WriteTimeout: 2 * time.Minute} // room for a CPU profile
		go m.metrics.Serve(m.metricsLn)
	}
	m.done = make(chan error, 1)
	go func() { m.done <- m.srv.Serve(ln) }()
	return nil
}

// newAPI builds the API server over a site's content as it is now: its pages, their mirrors (from PUBLIC_DIR
// when set) and the MCP tools that answer from them.
func (m *Main) newAPI(s *content.Site, replacement bool) (*api.Server, error) {
	docs, err := content.LoadMirrors(m.siteFS, s, m.Config.PublicDir)
	if err != nil {
		return nil, fmt.Errorf("site: %w", err)
	}
	deps := m.deps
	deps.Replacement = replacement
	deps.MCP = mcp.NewServer(mcp.Site{BaseURL: s.BaseURL, Title: s.Title, Owner: s.Owner.Name, Version: m.Version,
		Pages: s.Pages, WritingPage: s.WritingPage},
		mcp.Handlers{Board: deps.Board, Profile: docs.Profile, Page: docs.Page, Writing: deps.Writing.Posts})
	return api.New(m.Config, s, m.Log, deps), nil
}

// Reload reads the site again (from SITE_DIR; the built-in copy does not change) with the mirrors of PUBLIC_DIR,
// and answers from them from the next request on: pages added or removed, /api/md, get_page and get_profile
// follow an edit without a restart. The board, its store and the listener stay as they are. A site that does not
// load leaves the one being served in place.
func (m *Main) Reload() error {
	s, err := loadSite(m.siteFS)
	if err != nil {
		return err
	}
	s.BaseURL = m.Config.BaseURL
	next, err := m.newAPI(s, true)
	if err != nil {
		return err
	}
	m.srv.Reload(next)
	m.Log.Info("site reloaded", "pages", len(s.Pages))
	return nil
}

// MetricsAddr is the address /metrics listens on, "" when METRICS_ADDR is not set.
func (m *Main) MetricsAddr() string {
	if m.metricsLn == nil {
		return ""
	}
	return m.metricsLn.Addr().String()
}

// Addr is the address the server listens on, with the port chosen when Config.Addr asked for port 0.
func (m *Main) Addr() string { return m.ln.Addr().String() }

// LocalURL is the address to open in a browser on this machine: localhost when the server listens on every
// interface or on loopback, else the address it listens on.
func (m *Main) LocalURL() string {
	ap, err := netip.ParseAddrPort(m.Addr())
	if err != nil {
		return "http://" + m.Addr() + "/"
	}
	if a := ap.Addr(); a.IsUnspecified() || a.IsLoopback() {
		return fmt.Sprintf("http://localhost:%d/", ap.Port())
	}
	return "http://" + ap.String() + "/"
}

// Close stops the server, letting requests in flight finish within Config.ShutdownTimeout.
func (m *Main) Close() error {
	if m.srv == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), m.Config.ShutdownTimeout)
	defer cancel()
	err := m.srv.Shutdown(ctx)
	if m.metrics != nil {
		err = errors.Join(err, m.metrics.ShutdownWithContext(ctx))
	}
	if serveErr := <-m.done; serveErr != nil && !errors.Is(serveErr, net.ErrClosed) {
		err = errors.Join(err, serveErr)
	}
	return errors.Join(err, m.closeStore())
}

// closeStore stops the attempts to open the store and closes it if it opened.
func (m *Main) closeStore() error {
	m.stopOpening()
	if st := m.store.Backend(); st != nil {
		return st.Close()
	}
	return nil
}

// openBoard builds the board on a store that opens in the background: a DATA_DIR that cannot be opened now (held
// by another process, say) is retried with backoff, and until it opens the board's routes answer 503
// STORE_UNAVAILABLE while everything else serves. The challenge key comes from CHALLENGE_SECRET or the store;
// without either there is no key, and no challenge is handed out: the board never signs with a key it would
// lose at the next start.
func (m *Main) openBoard() *board.Service {
	cfg := m.Config
	m.store = store.NewOpening(errors.New("the store is being opened"))
	challenges := &keyedChallenger{}
	if cfg.ChallengeSecret != "" {
		var previous []byte
		if cfg.ChallengeSecretPrevious != "" {
			previous = []byte(cfg.ChallengeSecretPrevious)
		}
		challenges.set(challenge.New([]byte(cfg.ChallengeSecret), previous))
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	m.stopOpening = func() { cancel(); <-stopped }
	// The first attempt runs now, so that a free DATA_DIR is open before the first request.
	first := m.tryOpen(challenges)
	go func() {
		defer close(stopped)
		if first {
			return
		}
		m.keepOpening(ctx, challenges)
	}()

	var classifier *screen.Classifier
	if cfg.ScreenLLMURL != "" {
		classifier = &screen.Classifier{URL: cfg.ScreenLLMURL, Model: cfg.ScreenLLMModel, Key: cfg.ScreenLLMKey, Timeout: 5 * time.Second}
	}
	return &board.Service{
		Store:         m.store,
		Challenges:    challenges,
		Screen:        newScreen(classifier, cfg.ScreenLLMFailClosed, m.Log),
		Now:           m.Now,
		Limits:        board.DefaultLimits,
		Canonical:     screen.Canonical,
		Closed:        cfg.BoardClosed,
		BaseURL:       cfg.BaseURL,
		PostRate:      ratelimit.New(cfg.Limits.Posts, m.Now),
		ChallengeRate: ratelimit.New(cfg.Limits.Challenges, m.Now),
		Log:           m.Log,
	}
}

// newScreen makes the board's content screen. A build with the tag benchnoscreen (make bench-board's second
// server, which measures what the screen costs posting) replaces it with one that lets every note through.
var newScreen = func(classifier *screen.Classifier, failClosed bool, log *slog.Logger) board.Screener {
	return screen.New(classifier, failClosed, log)
}

// backup writes a copy of the board's store: a Pebble checkpoint; a database is backed up with its own tools.
func (m *Main) backup(ctx context.Context, w io.Writer) error {
	b := m.store.Backend()
	if b == nil {
		if err := m.store.Unavailable(); err != nil {
			return err
		}
		b = m.store.Backend() // it opened in between
	}
	p, ok := b.(interface {
		Backup(context.Context, io.Writer) error
	})
	if !ok {
		return errcode.New(errcode.NotFound, "the board is kept in PostgreSQL (STORE_URL), which this server does not copy",
			"back the database up with its own tools (pg_dump), or export the notes with GET "+paths.Export)
	}
	return p.Backup(ctx, w)
}

// Backoff of the attempts to open the store: from one second, doubling, to at most half a minute.
const (
	openRetryFirst = time.Second
	openRetryMax   = 30 * time.Second
)

// keepOpening retries opening the store until it opens or ctx ends, logging each attempt.
func (m *Main) keepOpening(ctx context.Context, challenges *keyedChallenger) {
	wait := openRetryFirst
	for attempt := 2; ; attempt++ {
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		m.Log.Info("opening the board's store again", "store", m.storeName(), "attempt", attempt)
		if m.tryOpen(challenges) {
			m.Log.Info("the board's store is open: board routes answer again", "store", m.storeName(), "attempt", attempt)
			return
		}
		wait = min(2*wait, openRetryMax)
	}
}

// tryOpen opens the store once: Pebble in DATA_DIR, or the database at STORE_URL; the challenge key if the store
// keeps it, the genesis notes, the sweeper. It reports whether the board is ready.
func (m *Main) tryOpen(challenges *keyedChallenger) bool {
	fail := func(err error) bool {
		m.store.Failed(err)
		m.Log.Error("the board's store cannot be opened: board routes answer 503 STORE_UNAVAILABLE; retrying",
			"store", m.storeName(), "err", err)
		return false
	}
	s, err := m.openBackend()
	if err != nil {
		return fail(err)
	}
	if !challenges.ready() {
		key, err := s.Secret()
		if err != nil {
			s.Close()
			return fail(fmt.Errorf("challenge key: %w", err))
		}
		challenges.set(challenge.New(key, nil))
	}
	if err := m.seedGenesis(s); err != nil {
		m.Log.Error("genesis notes not loaded", "err", err)
	}
	if sw, ok := s.(interface {
		StartSweep(time.Duration, func() time.Time)
	}); ok {
		sw.StartSweep(time.Minute, m.Now)
	}
	m.store.Ready(s) // after the key: a ready store means challenges can be issued and verified
	return true
}

// openBackend opens the configured store.
func (m *Main) openBackend() (store.Backend, error) {
	if m.Config.StoreURL != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return postgres.Open(ctx, m.Config.StoreURL)
	}
	return openStore(m.Config.DataDir, m.Log)
}

// storeName says which store the server uses, for the log; never with a password.
func (m *Main) storeName() string {
	if m.Config.StoreURL != "" {
		return config.RedactStoreURL(m.Config.StoreURL)
	}
	return "DATA_DIR " + m.Config.DataDir
}

// keyedChallenger is the board's challenger once it has a key; before, it issues nothing (the board, seeing the
// store unavailable, asks for none) and verifies nothing.
type keyedChallenger struct {
	issuer atomic.Pointer[challenge.Issuer]
}

func (k *keyedChallenger) set(i *challenge.Issuer) { k.issuer.Store(i) }
func (k *keyedChallenger) ready() bool             { return k.issuer.Load() != nil }

func (k *keyedChallenger) Issue(now time.Time) board.Challenge {
	if i := k.issuer.Load(); i != nil {
		return i.Issue(now)
	}
	return board.Challenge{}
}

func (k *keyedChallenger) Verify(id, answer string, now time.Time) (string, time.Time, error) {
	if i := k.issuer.Load(); i != nil {
		return i.Verify(id, answer, now)
	}
	return "", time.Time{}, errcode.New(errcode.StoreUnavailable, "the board's storage is unavailable", "try again in a minute; the rest of the site still works")
}

// warnings logs the settings that leave a guard off.
func (m *Main) warnings() {
	cfg := m.Config
	if host, _, err := net.SplitHostPort(cfg.Addr); err == nil {
		if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
			m.Log.Warn("ADDR listens on all interfaces: the MCP endpoint's DNS-rebinding guard (local Host and Origin only) is off; "+
				"set ADDR=127.0.0.1:8080 for a server only this machine uses", "ADDR", cfg.Addr)
		}
	}
	if cfg.MetricsAddr != "" {
		if host, _, err := net.SplitHostPort(cfg.MetricsAddr); err == nil {
			if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
				m.Log.Warn("METRICS_ADDR is not a loopback address: keep it private (a firewall, or 127.0.0.1)", "METRICS_ADDR", cfg.MetricsAddr)
			}
		}
	}
}

func openStore(dir string, log *slog.Logger) (*store.Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return store.Open(dir, log)
}

// seedGenesis stores the notes shipped in site/collusion that the store does not have yet.
func (m *Main) seedGenesis(s board.Store) error {
	shipped, err := content.LoadGenesis(m.siteFS)
	if err != nil {
		return err
	}
	notes := make([]board.Note, len(shipped))
	for i, g := range shipped {
		notes[i] = board.Note{ID: g.ID, Handle: g.Handle, Model: g.Model, Body: strings.TrimSpace(g.Body), Via: board.ViaGenesis, CreatedAt: g.CreatedAt}
		if g.InReplyTo != "" {
			notes[i].InReplyTo = &g.InReplyTo
		}
	}
	return s.SeedGenesis(context.Background(), notes)
}

// newLogger logs as text on a terminal and as JSON elsewhere, unless LOG_FORMAT says which.
func newLogger(cfg config.Config, out io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	format := cfg.LogFormat
	if format == "" {
		format = "json"
		if isTerminal(out) {
			format = "text"
		}
	}
	if format == "text" {
		return slog.New(slog.NewTextHandler(out, opts))
	}
	return slog.New(slog.NewJSONHandler(out, opts))
}

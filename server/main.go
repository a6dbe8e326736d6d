// Command server runs the site's API server and, in local mode, serves the built site beside it.
package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"twofold/build/content"
	"twofold/server/api"
	"twofold/server/board"
	"twofold/server/challenge"
	"twofold/server/config"
	"twofold/server/logo"
	"twofold/server/mcp"
	"twofold/server/metrics"
	"twofold/server/og"
	"twofold/server/pages"
	"twofold/server/screen"
	"twofold/server/store"
	"twofold/server/writing"
	"twofold/site"

	"github.com/valyala/fasthttp"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.LookupEnv, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(1)
	}
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
	m.Log.Info("serving", "addr", m.Addr(), "public", m.Config.PublicDir, "base_url", m.Config.BaseURL)
	select {
	case <-ctx.Done():
	case err := <-m.done:
		return err
	}
	m.Log.Info("shutting down")
	return m.Close()
}

// Main is the server program as a value, so that tests run exactly what main runs.
type Main struct {
	Config config.Config
	Site   *content.Site
	Log    *slog.Logger
	Now    func() time.Time // the clock of the board and the rate limits
	// LogoFetcher is the logo lookup's guarded client; nil is the production one. Tests set one whose resolver
	// and dialer lead to httptest servers: the guard between them is the same.
	LogoFetcher *logo.Fetcher

	ln        net.Listener
	metricsLn net.Listener
	metrics   *fasthttp.Server
	srv       *api.Server
	store     *store.Store // nil when the store could not be opened
	done      chan error
}

// NewMain reads the site and the configuration; it opens nothing yet.
func NewMain(lookup func(string) (string, bool), logOut io.Writer) (*Main, error) {
	s, err := content.LoadSite(site.FS)
	if err != nil {
		return nil, fmt.Errorf("embedded site: %w", err)
	}
	cfg, err := config.FromEnv(lookup, config.Defaults{BaseURL: s.BaseURL, WritingFeedURL: s.WritingFeedURL})
	if err != nil {
		return nil, fmt.Errorf("configuration:\n%w", err)
	}
	return &Main{Config: cfg, Site: s, Log: newLogger(cfg, logOut), Now: time.Now}, nil
}

// Open starts listening on Config.Addr and serving in the background.
func (m *Main) Open() error {
	ln, err := net.Listen("tcp", m.Config.Addr)
	if err != nil {
		return fmt.Errorf("ADDR: %w", err)
	}
	m.ln = ln
	svc := m.openBoard()
	docs, err := pages.Load(site.FS, m.Site, m.Config.PublicDir)
	if err != nil {
		ln.Close()
		return fmt.Errorf("embedded site: %w", err)
	}
	userAgent := "twofold/" + mcpVersion + " (+" + m.Config.BaseURL + ")"
	feed := &writing.Feed{URL: m.Config.WritingFeedURL, Now: m.Now, Log: m.Log, UserAgent: userAgent}
	fetcher := m.LogoFetcher
	if fetcher == nil {
		fetcher = &logo.Fetcher{UserAgent: userAgent}
	}
	var cache logo.Cache = store.Unavailable{Cause: errors.New("the store is not open")}
	if m.store != nil {
		cache = m.store
	}
	logos := &logo.Service{Fetcher: fetcher, Cache: cache, Services: m.Config.LogoServices, Now: m.Now, Log: m.Log}
	host := m.Config.BaseURL
	if u, err := url.Parse(host); err == nil && u.Host != "" {
		host = u.Host
	}
	images := &og.Service{Owner: m.Site.Owner.Name, Host: host, Title: m.Site.Owner.Name, Subtitle: m.Site.Owner.Tagline, Recompress: true}
	tools := mcp.NewServer(mcp.ServerName(m.Site.BaseURL), m.Site.Title, mcpVersion,
		"The site of "+m.Site.Owner.Name+": call get_profile first. The collusion wiki is an agents-only board: "+
			"list_collusion_notes to read, get_collusion_challenge then leave_collusion_note to post.",
		mcp.Handlers{Board: svc, Profile: docs.Profile, Page: docs.Page, Writing: func(ctx context.Context, limit int) (any, error) {
			posts, err := feed.Posts(ctx, limit)
			if err != nil {
				return nil, err
			}
			return map[string]any{"posts": posts}, nil
		}})
	var numbers *metrics.Metrics
	if m.Config.MetricsAddr != "" {
		numbers = metrics.New()
		svc.Rejected = numbers.Rejected
		if m.store != nil {
			numbers.Gauge("twofold_notes", "Notes on the board.", func() float64 { return float64(m.store.Total()) })
		}
		numbers.Cache("og", images.Stats)
		numbers.Cache("logo", logos.Stats)
		numbers.Cache("writing", feed.Stats)
	}
	health := api.Health{Version: mcpVersion, Started: time.Now()}
	if m.store != nil {
		health.Store = m.store.Ping
	} else {
		health.Store = func() error { return errors.New("the store could not be opened") }
	}
	m.srv = api.New(m.Config, m.Site, m.Log, api.Deps{Board: svc, MCP: tools, Writing: feed, Logos: logos, OG: images, Now: m.Now,
		Metrics: numbers, Health: health,
		Limits: api.Limits{Posts: m.Config.RatePosts, Challenges: m.Config.RateChallenges, Reads: m.Config.RateReads,
			MCP: m.Config.RateMCP, Logos: m.Config.RateLogos}})
	if numbers != nil {
		if m.metricsLn, err = net.Listen("tcp", m.Config.MetricsAddr); err != nil {
			ln.Close()
			return fmt.Errorf("METRICS_ADDR: %w", err)
		}
		m.metrics = &fasthttp.Server{Handler: numbers.Handler(), Name: "twofold-metrics", ReadTimeout: 10 * time.Second, WriteTimeout: 2 * time.Minute} // room for a CPU profile
		go m.metrics.Serve(m.metricsLn)
	}
	m.done = make(chan error, 1)
	go func() { m.done <- m.srv.Serve(ln) }()
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
	if m.store != nil {
		err = errors.Join(err, m.store.Close())
	}
	return err
}

// mcpVersion is the version of the server as MCP clients see it: the API's.
const mcpVersion = "1.1.0"

// openBoard opens the store and builds the board on it. A store that cannot be opened is logged and stands in
// as one that answers STORE_UNAVAILABLE, so that the rest of the site keeps serving.
func (m *Main) openBoard() *board.Service {
	cfg := m.Config
	var st board.Store
	s, err := openStore(cfg.DataDir, m.Log)
	if err != nil {
		m.Log.Error("the board's store cannot be opened: board routes answer 503 STORE_UNAVAILABLE", "DATA_DIR", cfg.DataDir, "err", err)
		st = store.Unavailable{Cause: err}
	} else {
		m.store, st = s, s
		if err := seedGenesis(s); err != nil {
			m.Log.Error("genesis notes not loaded", "err", err)
		}
		s.StartSweep(time.Minute, m.Now)
	}

	key := []byte(cfg.ChallengeSecret)
	if len(key) == 0 && m.store != nil {
		if key, err = m.store.Secret(); err != nil {
			m.Log.Error("challenge key not readable from the store", "err", err)
		}
	}
	if len(key) == 0 {
		key = make([]byte, 32)
		rand.Read(key)
		m.Log.Warn("using a challenge key that lasts until restart: set CHALLENGE_SECRET or fix the store")
	}
	var previous []byte
	if cfg.ChallengeSecretPrevious != "" {
		previous = []byte(cfg.ChallengeSecretPrevious)
	}
	var classifier *screen.Classifier
	if cfg.ScreenLLMURL != "" {
		classifier = &screen.Classifier{URL: cfg.ScreenLLMURL, Model: cfg.ScreenLLMModel, Key: cfg.ScreenLLMKey, Timeout: 5 * time.Second}
	}
	return &board.Service{
		Store:      st,
		Challenges: challenge.New(key, previous),
		Screen:     screen.New(classifier, cfg.ScreenLLMFailClosed, m.Log),
		Now:        m.Now,
		Limits:     board.DefaultLimits,
		Closed:     cfg.BoardClosed,
		BaseURL:    cfg.BaseURL,
	}
}

func openStore(dir string, log *slog.Logger) (*store.Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return store.Open(dir, false, log)
}

// seedGenesis stores the notes shipped in site/collusion that the store does not have yet.
func seedGenesis(s *store.Store) error {
	shipped, err := content.LoadGenesis(site.FS)
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
		if f, ok := out.(*os.File); ok {
			if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
				format = "text"
			}
		}
	}
	if format == "text" {
		return slog.New(slog.NewTextHandler(out, opts))
	}
	return slog.New(slog.NewJSONHandler(out, opts))
}

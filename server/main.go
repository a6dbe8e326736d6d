// Command server runs the site's API server and, in local mode, serves the built site beside it.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"

	"twofold/build/content"
	"twofold/server/api"
	"twofold/server/config"
	"twofold/site"
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

	ln   net.Listener
	srv  *api.Server
	done chan error
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
	return &Main{Config: cfg, Site: s, Log: newLogger(cfg, logOut)}, nil
}

// Open starts listening on Config.Addr and serving in the background.
func (m *Main) Open() error {
	ln, err := net.Listen("tcp", m.Config.Addr)
	if err != nil {
		return fmt.Errorf("ADDR: %w", err)
	}
	m.ln = ln
	m.srv = api.New(m.Config, m.Site, m.Log)
	m.done = make(chan error, 1)
	go func() { m.done <- m.srv.Serve(ln) }()
	return nil
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
	if serveErr := <-m.done; serveErr != nil && !errors.Is(serveErr, net.ErrClosed) {
		err = errors.Join(err, serveErr)
	}
	return err
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

// Package api is the server's HTTP face: the API's endpoints with their limits, the JSON envelope and the one
// error writer, and the guards every request passes. In local mode the static host's emulation (server/host)
// stands in front of it, so that one process answers the whole site.
package api

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"twofold/server/board"
	"twofold/server/config"
	"twofold/server/content"
	"twofold/server/errcode"
	"twofold/server/host"
	"twofold/server/logo"
	"twofold/server/mcp"
	"twofold/server/metrics"
	"twofold/server/og"
	"twofold/server/paths"
	"twofold/server/ratelimit"
	"twofold/server/writing"

	"github.com/valyala/fasthttp"
)

// Limits of every request, whatever its route.
const (
	maxRequestBody = 64 << 10
	readTimeout    = 10 * time.Second
	writeTimeout   = 30 * time.Second
	idleTimeout    = 60 * time.Second
)

// Server answers HTTP requests: the dynamic API always, and the built site in local mode (PublicDir set).
type Server struct {
	cfg       config.Config
	log       *slog.Logger
	site      *content.Site
	host      *host.Host // the static host's rules and files, in front of the API
	endpoints []Endpoint
	http      *fasthttp.Server

	board        *board.Service
	mcp          *mcp.Server
	writing      *writing.Feed
	logos        *logo.Service
	og           *og.Service
	metrics      *metrics.Metrics
	recordRoutes bool                   // the metrics or the log (LOG_REQUESTS) record each request's route
	delegate     atomic.Pointer[Server] // the server Reload installed, which answers in this one's place
	export       func(ctx context.Context, w io.Writer) (int, error)
	backup       func(ctx context.Context, w io.Writer) error
	health       Health
	limits       limiters
	pages        pageCache
	listingTail  []byte
	loopbackBind bool // ADDR is a loopback address: MCP answers only local origins
}

// Deps are the capabilities the server answers for; a nil one has no routes.
type Deps struct {
	Board   *board.Service
	MCP     *mcp.Server
	Writing *writing.Feed
	Logos   *logo.Service
	OG      *og.Service
	Metrics *metrics.Metrics // nil: nothing recorded
	Health  Health
	// Export writes every note of the board, oldest first, as JSON lines; Backup writes a consistent copy of the
	// store (a gzipped tar). Both are the owner's; nil: no such route.
	Export func(ctx context.Context, w io.Writer) (int, error)
	Backup func(ctx context.Context, w io.Writer) error
	// Replacement marks a server made to be installed behind a running one's listener (Reload): the running one's
	// metrics already count its caches.
	Replacement bool
	Now         func() time.Time // the clock of the rate limits; time.Now when nil
	// ReadTimeout bounds the reading of a request, from the connection's first byte; readTimeout when 0.
	ReadTimeout time.Duration
}

// New builds a server from its configuration, the site it serves and its capabilities.
func New(cfg config.Config, site *content.Site, log *slog.Logger, deps Deps) *Server {
	s := &Server{cfg: cfg, log: log, site: site, board: deps.Board, mcp: deps.MCP,
		writing: deps.Writing, logos: deps.Logos, og: deps.OG, metrics: deps.Metrics, health: deps.Health,
		export: deps.Export, backup: deps.Backup}
	if s.board != nil {
		s.listingTail = listingTail(s.board)
	}
	s.host = host.New(cfg.PublicDir, site.Pages, s)
	s.loopbackBind = boundToLoopback(cfg.Addr)
	s.recordRoutes = s.metrics != nil || (cfg.LogRequests != config.LogRequestsOff && cfg.LogRequests != "")
	now := deps.Now
	if now == nil {
		now = time.Now
	}
	l, d := cfg.Limits, config.DefaultLimits // a zero limit (a Config not from FromEnv) takes the default
	s.limits = limiters{
		reads: ratelimit.New(cmp.Or(l.Reads, d.Reads), now),
		mcp:   ratelimit.New(cmp.Or(l.MCP, d.MCP), now),
		logos: ratelimit.New(cmp.Or(l.Logos, d.Logos), now),
		og:    ratelimit.New(cmp.Or(l.OG, d.OG), now),
		owner: ratelimit.New(cmp.Or(l.Owner, d.Owner), now),
	}
	s.endpoints = s.apiRoutes()
	if !deps.Replacement {
		s.metrics.Cache("board_pages", func() (uint64, uint64) { a := s.active(); return a.pages.hits.Load(), a.pages.misses.Load() })
	}
	s.http = &fasthttp.Server{
		Handler:                      s.Handle,
		Name:                         "twofold",
		ReadTimeout:                  cmp.Or(deps.ReadTimeout, readTimeout),
		WriteTimeout:                 writeTimeout,
		IdleTimeout:                  idleTimeout,
		MaxRequestBodySize:           maxRequestBody,
		WriteBufferSize:              32 << 10, // a page of the board (13 KB) leaves in one write, not four
		DisablePreParseMultipartForm: true,
		ErrorHandler:                 s.handleParseError,
		HeaderReceived:               downloads,
		Logger:                       fasthttpLogger{log},
	}
	return s
}

// Serve answers requests on ln until Shutdown.
func (s *Server) Serve(ln net.Listener) error { return s.http.Serve(ln) }

// Shutdown stops accepting connections and waits for requests in flight, or for ctx.
func (s *Server) Shutdown(ctx context.Context) error { return s.http.ShutdownWithContext(ctx) }

// downloadTimeout is how long the owner's downloads (a backup, an export) may take to send: a store of some hundred
// megabytes over a slow line takes minutes, where every other answer has writeTimeout.
const downloadTimeout = time.Hour

// downloads gives the owner's downloads their own write timeout.
func downloads(h *fasthttp.RequestHeader) fasthttp.RequestConfig {
	if p := h.RequestURI(); bytes.HasPrefix(p, []byte(paths.Backup)) || bytes.HasPrefix(p, []byte(paths.Export)) {
		return fasthttp.RequestConfig{WriteTimeout: downloadTimeout}
	}
	return fasthttp.RequestConfig{}
}

// responseSize is the size of the answer's body, without reading a streamed body (a backup) into memory.
func responseSize(ctx *fasthttp.RequestCtx) int {
	if ctx.Response.IsBodyStream() {
		return ctx.Response.Header.ContentLength()
	}
	return len(ctx.Response.Body())
}

// Reload installs next behind this server's listener: from the next request on, next answers (its routes, its
// content), while connections and requests in flight go on. The site's content is reloaded this way (SIGHUP).
func (s *Server) Reload(next *Server) {
	next.limits = s.limits // the per-address limits carry on: a reload is no way around them
	s.delegate.Store(next)
}

// active is the server that answers: the last one Reload installed, or this one.
func (s *Server) active() *Server {
	if d := s.delegate.Load(); d != nil {
		return d
	}
	return s
}

// Handle answers one request, and records it: in the metrics, and as a line of the log (LOG_REQUESTS).
func (s *Server) Handle(ctx *fasthttp.RequestCtx) {
	if d := s.delegate.Load(); d != nil {
		d.Handle(ctx)
		return
	}
	if !s.recordRoutes {
		s.handle(ctx)
		return
	}
	start := time.Now()
	s.handle(ctx)
	took := time.Since(start)
	route, _ := ctx.UserValue(routeKey).(string)
	if route == "" {
		route = "static"
	}
	status := ctx.Response.StatusCode()
	s.metrics.Observe(route, status, took)
	if s.cfg.LogRequests == config.LogRequestsAll || s.cfg.LogRequests == config.LogRequestErrors && status >= 400 {
		s.logRequest(ctx, route, status, took)
	}
}

// logRequest writes one line for an answered request: what an operator needs to find it, never its query or body
// (a query may carry a token, a body a stranger's words).
func (s *Server) logRequest(ctx *fasthttp.RequestCtx, route string, status int, took time.Duration) {
	level := slog.LevelInfo
	if status >= 500 {
		level = slog.LevelError
	}
	s.log.LogAttrs(context.Background(), level, "request",
		slog.String("method", string(ctx.Method())),
		slog.String("route", route),
		slog.Int("status", status),
		slog.Float64("ms", float64(took.Microseconds())/1000),
		slog.Int("bytes", responseSize(ctx)),
		slog.String("client", s.clientIP(ctx).String()))
}

// routeKey is the user value under which dispatch leaves the pattern of the route it chose.
const routeKey = "twofold.route"

// handle answers one request: past the guards, a preflight of the API, or the static host (which hands the API's
// requests to ServeAPI).
func (s *Server) handle(ctx *fasthttp.RequestCtx) {
	defer func() {
		if v := recover(); v != nil {
			s.writeError(ctx, fmt.Errorf("panic serving %s %s: %v", ctx.Method(), ctx.Path(), v))
		}
	}()
	if ambiguousFraming(ctx.Request.Header.RawHeaders()) {
		// Two proxies may read the body's end differently: a request-smuggling attempt, or a broken client. Either
		// way the connection cannot be trusted to be where the client thinks it is.
		ctx.SetConnectionClose()
		s.writeError(ctx, errcode.New(errcode.InvalidBody, "the request has both Content-Length and Transfer-Encoding, or a folded header line",
			"send one of Content-Length and Transfer-Encoding, and each header on one line"))
		return
	}
	if ctx.IsOptions() && host.IsAPI(string(ctx.Path())) {
		s.preflight(ctx)
		return
	}
	s.host.Handle(ctx)
}

// ServeAPI answers a request for an API path (host.API).
func (s *Server) ServeAPI(ctx *fasthttp.RequestCtx) { s.dispatch(ctx, string(ctx.Path())) }

// WriteError answers an error as the JSON envelope (host.API).
func (s *Server) WriteError(ctx *fasthttp.RequestCtx, err error) { s.writeError(ctx, err) }

// dispatch hands the request to the endpoint of path, answering 405 with Allow when the path exists under another
// method, and 404 when it does not exist at all.
func (s *Server) dispatch(ctx *fasthttp.RequestCtx, path string) {
	method := string(ctx.Method())
	var allow []string
	var fallback *Endpoint
	for i, e := range s.endpoints {
		vars, ok := paths.Match(e.Path, path)
		if !ok {
			continue
		}
		if e.Method == anyMethod {
			fallback = &s.endpoints[i]
			continue
		}
		if e.Method == method || (method == fasthttp.MethodHead && e.Method == fasthttp.MethodGet) {
			if s.recordRoutes {
				ctx.SetUserValue(routeKey, e.Path)
			}
			for k, v := range vars {
				ctx.SetUserValue(k, v)
			}
			e.Handler(ctx)
			return
		}
		allow = append(allow, e.Method)
		if e.Method == fasthttp.MethodGet {
			allow = append(allow, fasthttp.MethodHead)
		}
	}
	if fallback != nil {
		if s.recordRoutes {
			ctx.SetUserValue(routeKey, fallback.Path)
		}
		fallback.Handler(ctx)
		return
	}
	if s.recordRoutes {
		ctx.SetUserValue(routeKey, "api (unmatched)")
	}
	if len(allow) > 0 {
		s.writeError(ctx, methodNotAllowed(method, allow...))
		return
	}
	s.writeError(ctx, errcode.Errorf(errcode.NotFound, "see "+s.site.URL("/openapi.json")+" for the API's routes", "no API route at %s", path))
}

func methodNotAllowed(method string, allow ...string) *errcode.Error {
	list := strings.Join(allow, ", ")
	return &errcode.Error{
		Code:    errcode.MethodNotAllowed,
		Message: fmt.Sprintf("method %s is not allowed here", method),
		Hint:    "use " + list,
		Allow:   list,
	}
}

// preflight answers a CORS preflight for the public API. There are no cookies, so any origin may call it.
func (s *Server) preflight(ctx *fasthttp.RequestCtx) {
	if s.metrics != nil {
		ctx.SetUserValue(routeKey, "preflight")
	}
	h := &ctx.Response.Header
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Allow-Methods", "GET, HEAD, POST, DELETE, OPTIONS")
	h.Set("Access-Control-Allow-Headers", "Content-Type, Authorization, Accept, If-None-Match, X-Agent-Channel, MCP-Protocol-Version, Mcp-Session-Id, Last-Event-ID")
	h.Set("Access-Control-Max-Age", "86400")
	ctx.SetStatusCode(fasthttp.StatusNoContent)
}

// apiHeaderValues are set on every JSON answer of the API; the names are already canonical.
var apiHeaderValues = [][2][]byte{
	{[]byte("Access-Control-Allow-Origin"), []byte("*")},
	{[]byte("Access-Control-Expose-Headers"), []byte("Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Location")},
	{[]byte("X-Content-Type-Options"), []byte("nosniff")},
	{[]byte("Cache-Control"), []byte("no-store")},
}

var contentTypeJSON = []byte("application/json")

func apiHeaders(ctx *fasthttp.RequestCtx) {
	h := &ctx.Response.Header
	h.SetContentTypeBytes(contentTypeJSON)
	for _, kv := range apiHeaderValues {
		h.SetCanonical(kv[0], kv[1])
	}
}

// envelope is the body of a successful answer; an error's is errcode.Envelope.
type envelope struct {
	Success bool   `json:"success"`
	Docs    string `json:"docs,omitempty"`
	Data    any    `json:"data,omitempty"`
}

// writeData answers {"success": true, "data": data} with status.
func (s *Server) writeData(ctx *fasthttp.RequestCtx, status int, data any) {
	s.writeEnvelope(ctx, status, envelope{Success: true, Data: data})
}

func (s *Server) writeEnvelope(ctx *fasthttp.RequestCtx, status int, env envelope) {
	body, err := json.Marshal(env)
	if err != nil {
		s.writeError(ctx, fmt.Errorf("encode answer: %w", err))
		return
	}
	apiHeaders(ctx)
	ctx.SetStatusCode(status)
	ctx.SetBody(body)
}

// writeError is the one writer of error envelopes. An error without a code is logged in full and answered as
// INTERNAL without its detail.
func (s *Server) writeError(ctx *fasthttp.RequestCtx, err error) {
	e, internal := errcode.From(err)
	if internal {
		s.log.Error("internal error", "method", string(ctx.Method()), "path", string(ctx.Path()), "err", err)
	}
	body, _ := json.Marshal(e.Envelope(s.site.URL(paths.OpenAPI)))
	ctx.Response.ResetBody()
	apiHeaders(ctx)
	if e.Allow != "" {
		ctx.Response.Header.Set("Allow", e.Allow)
	}
	if e.RetryAfter > 0 {
		ctx.Response.Header.Set("Retry-After", strconv.Itoa(errcode.CeilSeconds(e.RetryAfter)))
	}
	if e.RateLimit != nil {
		rateLimitHeaders(ctx, e.RateLimit)
	}
	ctx.SetStatusCode(errcode.Status(e.Code))
	ctx.SetBody(body)
}

// ambiguousFraming reports a request whose headers, as received, say two things about where its body ends: both
// Content-Length and Transfer-Encoding (RFC 9112, 6.1), or a header folded onto a continuation line (obs-fold,
// RFC 9112, 5.2), which proxies read differently.
func ambiguousFraming(raw []byte) bool {
	length, transfer := false, false
	for len(raw) > 0 {
		line := raw
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i], raw[i+1:]
		} else {
			raw = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			return true
		}
		name, _, _ := bytes.Cut(line, []byte(":"))
		name = bytes.TrimSpace(name)
		length = length || bytes.EqualFold(name, []byte("Content-Length"))
		transfer = transfer || bytes.EqualFold(name, []byte("Transfer-Encoding"))
	}
	return length && transfer
}

// handleParseError answers requests fasthttp could not read: too large, malformed, or too slow. The connection
// is closed after the answer: what follows on it cannot be trusted to start a request.
func (s *Server) handleParseError(ctx *fasthttp.RequestCtx, err error) {
	ctx.SetConnectionClose()
	if t, ok := err.(interface{ Timeout() bool }); ok && t.Timeout() && len(ctx.Request.Header.RawHeaders()) == 0 {
		// A connection that never sent a byte (a client's spare connection) is closed without an answer: a 400 on
		// it would reach the client as a response to a request it has not sent yet.
		ctx.Conn().Close()
		return
	}
	var e *errcode.Error
	switch {
	case strings.Contains(err.Error(), "body size exceeds"):
		e = errcode.New(errcode.PayloadTooLarge, fmt.Sprintf("request body is larger than %d KiB", maxRequestBody>>10), "send a smaller body")
	default:
		e = errcode.New(errcode.InvalidBody, "the request could not be read", "send a well-formed HTTP/1.1 request")
	}
	s.writeError(ctx, e)
}

// fasthttpLogger sends fasthttp's own messages to the structured log.
type fasthttpLogger struct{ log *slog.Logger }

func (l fasthttpLogger) Printf(format string, args ...any) {
	l.log.Warn(fmt.Sprintf(format, args...), "component", "fasthttp")
}

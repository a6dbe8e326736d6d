package api

import (
	"net"
	"net/url"
	"strconv"
	"strings"

	"twofold/server/errcode"
	"twofold/server/mcp"
	"twofold/server/ratelimit"

	"github.com/valyala/fasthttp"
)

// postMCP is the Streamable HTTP transport, stateless: one JSON-RPC message per POST, answered as JSON.
func (s *Server) postMCP(ctx *fasthttp.RequestCtx) {
	if !s.mcpOriginAllowed(ctx) {
		s.writeRPC(ctx, fasthttp.StatusForbidden, mcp.ErrorBody(-32000, "Forbidden: this server answers only local origins"))
		return
	}
	version := strings.TrimSpace(string(ctx.Request.Header.Peek("MCP-Protocol-Version")))
	if version != "" && !mcp.Supported(version) {
		// The header is not echoed: the answer names the versions there are.
		s.writeRPC(ctx, fasthttp.StatusBadRequest, mcp.ErrorBody(-32600, "Bad Request: unsupported MCP-Protocol-Version; supported: "+strings.Join(mcp.AllVersions, ", ")))
		return
	}
	client := s.clientIP(ctx)
	d := s.limits.mcp.Allow(ratelimit.Key(client))
	if !d.Allowed {
		s.metrics.RateLimited("mcp")
		secs := errcode.CeilSeconds(d.RetryAfter)
		ctx.Response.Header.Set("Retry-After", strconv.Itoa(secs))
		rateLimitHeaders(ctx, d.Header())
		s.writeRPC(ctx, fasthttp.StatusTooManyRequests, mcp.ErrorBody(-32000, "Too many requests from this address: wait "+strconv.Itoa(secs)+" seconds"))
		return
	}
	apiHeaders(ctx)
	c, cancel := requestContext()
	defer cancel()
	status := s.mcp.HandleTo(c, mcp.Call{Body: ctx.PostBody(), Version: version, Client: client}, ctx)
	ctx.SetStatusCode(status)
	if status == fasthttp.StatusAccepted { // no body, so no content type
		ctx.Response.Header.Del("Content-Type")
	}
}

// mcpWrongMethod answers every method but POST: there is no standalone event stream (GET) and no session to end
// (DELETE).
func (s *Server) mcpWrongMethod(ctx *fasthttp.RequestCtx) {
	ctx.Response.Header.Set("Allow", "POST")
	s.writeRPC(ctx, fasthttp.StatusMethodNotAllowed, mcp.ErrorBody(-32000, "Method not allowed: this stateless server takes one JSON-RPC message per POST"))
}

// writeRPC answers a JSON-RPC body; the body is the caller's to give away, so it is not copied.
func (s *Server) writeRPC(ctx *fasthttp.RequestCtx, status int, body []byte) {
	apiHeaders(ctx)
	ctx.SetStatusCode(status)
	ctx.Response.SetBodyRaw(body)
}

// mcpOriginAllowed guards against DNS rebinding: a server bound to a loopback address answers only requests whose
// Host and Origin are local, or the site's own (BASE_URL's host: a reverse proxy on the same machine passes it on,
// and no rebinding page can make a browser send a name its owner's DNS does not give). An opaque origin ("null": a
// sandboxed frame, a file, a redirect across origins) is neither, and an absolute-form request target must name
// the host the Host header names. A server bound publicly answers any origin (main logs that the guard is off).
func (s *Server) mcpOriginAllowed(ctx *fasthttp.RequestCtx) bool {
	if !s.loopbackBind {
		return true
	}
	ours := func(host string) bool { return loopback(host) || strings.EqualFold(host, hostOnly(s.site.Host())) }
	header := string(ctx.Request.Header.Host()) // the Host header as sent; ctx.Host() prefers an absolute target's
	if !ours(hostOnly(header)) {
		return false
	}
	if absoluteTarget(ctx) && !strings.EqualFold(string(ctx.URI().Host()), header) {
		return false
	}
	if origin := string(ctx.Request.Header.Peek("Origin")); origin != "" {
		u, err := url.Parse(origin)
		if err != nil || !ours(u.Hostname()) {
			return false
		}
	}
	return true
}

// absoluteTarget reports whether the request line names a whole URL (GET http://host/path), as requests to a
// proxy do, rather than a path.
func absoluteTarget(ctx *fasthttp.RequestCtx) bool {
	t := ctx.Request.Header.RequestURI()
	return len(t) > 0 && t[0] != '/' && t[0] != '*'
}

// boundToLoopback reports whether the listen address is a loopback one.
func boundToLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	return err == nil && loopback(host)
}

func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.Trim(hostport, "[]")
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// Package host is the static host, emulated: the route table of server/host/rules (the redirect and header rules
// the build hands Netlify in _redirects, _headers and netlify.toml) applied, and the built site's files served. In
// local mode (PUBLIC_DIR set) it stands in front of the API server, so that one process answers the whole site
// exactly as Netlify and the API server would together; netlify_test.go holds netlify.toml and the generated files
// to the same table.
package host

import (
	"strings"

	"twofold/server/errcode"
	"twofold/server/host/rules"
	"twofold/server/paths"

	"github.com/valyala/fasthttp"
)

// API is the server behind the static host: what its dynamic rules and every other /api/ address reach.
type API interface {
	// ServeAPI answers a request for an API path (ctx.Path()).
	ServeAPI(ctx *fasthttp.RequestCtx)
	// WriteError answers an error as the API's JSON envelope.
	WriteError(ctx *fasthttp.RequestCtx, err error)
}

// Host answers requests as the static host does, handing the API's to api.
type Host struct {
	publicDir    string // "": no built site; its rules and files are the real static host's business
	api          API
	rules        []rules.Redirect
	rulePrefixes []string // literalPrefix of each rule
	headers      []rules.Header
}

// New returns the static host of a site with the given page ids, serving publicDir ("" for none) in front of api.
func New(publicDir string, pages []string, api API) *Host {
	h := &Host{publicDir: publicDir, api: api, rules: rules.Redirects(pages), headers: rules.Headers()}
	for _, r := range h.rules {
		h.rulePrefixes = append(h.rulePrefixes, literalPrefix(r.From))
	}
	return h
}

// Handle answers one request: the rules in order, then the API, then a file of the built site.
func (h *Host) Handle(ctx *fasthttp.RequestCtx) {
	path := string(ctx.Path())
	for i, r := range h.rules {
		if !strings.HasPrefix(path, h.rulePrefixes[i]) || !paths.Matches(r.From, path) {
			continue
		}
		if r.Kind == rules.Dynamic {
			h.api.ServeAPI(ctx) // a dynamic rule forwards the path as it is (TestDynamicRulesForwardThePath)
			return
		}
		if h.publicDir == "" {
			break // without the built site, its rewrites are the static host's business
		}
		vars, _ := paths.Match(r.From, path)
		h.serveRewrite(ctx, r, vars)
		return
	}
	if IsAPI(path) {
		h.api.ServeAPI(ctx)
		return
	}
	if h.publicDir == "" {
		h.api.WriteError(ctx, errcode.New(errcode.NotFound, "this server answers only the API", "the site's pages are served by the static host"))
		return
	}
	h.serveFile(ctx, path)
}

// IsAPI reports whether a path is the API's.
func IsAPI(path string) bool { return path == "/api" || strings.HasPrefix(path, "/api/") }

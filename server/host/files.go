package host

import (
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"os"
	"path"
	"path/filepath"
	"strings"

	"twofold/server/errcode"
	"twofold/server/host/rules"

	"github.com/valyala/fasthttp"
)

// contentTypes are the types of the files the build writes; anything else falls back to the mime package.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".md":   rules.TypeMarkdown,
	".txt":  rules.TypeText,
	".xml":  rules.TypeXML,
	".json": rules.TypeJSON,
	".css":  "text/css; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".svg":  "image/svg+xml",
	".png":  "image/png",
	".ico":  "image/x-icon",
}

func contentType(name string) string {
	ext := strings.ToLower(filepath.Ext(name))
	if t, ok := contentTypes[ext]; ok {
		return t
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	return "application/octet-stream"
}

// serveRewrite answers a Static rule: the file it names, with its status.
func (h *Host) serveRewrite(ctx *fasthttp.RequestCtx, r rules.Redirect, vars map[string]string) {
	if !ctx.IsGet() && !ctx.IsHead() {
		h.api.WriteError(ctx, readOnly(ctx))
		return
	}
	file := expand(r.To, vars)
	if !h.sendFile(ctx, string(ctx.Path()), file, r.Status) {
		h.api.WriteError(ctx, fmt.Errorf("rule %s -> %s: %s is missing from %s", r.From, r.To, file, h.publicDir))
	}
}

// serveFile answers a path of the built site as the static host does: "/x/" is x/index.html, "/x" naming a
// folder redirects to "/x/", and what is missing gets 404.html.
func (h *Host) serveFile(ctx *fasthttp.RequestCtx, urlPath string) {
	if !ctx.IsGet() && !ctx.IsHead() {
		h.staticMethodNotAllowed(ctx)
		return
	}
	file := path.Clean("/" + urlPath)
	if strings.HasSuffix(urlPath, "/") {
		file = path.Join(file, "index.html")
	}
	if fi, err := os.Stat(h.local(file)); err == nil && fi.IsDir() {
		if _, err := os.Stat(h.local(path.Join(file, "index.html"))); err == nil {
			// A relative Location, from the cleaned path: never the Host header (which the client chose), and never
			// "//host/" (a path of two slashes would be read as another site).
			target := path.Clean("/"+urlPath) + "/"
			if q := ctx.URI().QueryString(); len(q) > 0 {
				target += "?" + string(q)
			}
			ctx.Response.Header.Set("Location", target)
			ctx.SetStatusCode(fasthttp.StatusMovedPermanently)
			return
		}
	}
	if h.sendFile(ctx, urlPath, file, fasthttp.StatusOK) {
		return
	}
	if h.sendFile(ctx, urlPath, "/404.html", fasthttp.StatusNotFound) {
		return
	}
	ctx.Error("404 not found\n", fasthttp.StatusNotFound)
}

// local turns a site path into a path under PublicDir; path.Clean of a rooted path cannot climb out of it.
func (h *Host) local(sitePath string) string {
	return filepath.Join(h.publicDir, filepath.FromSlash(path.Clean("/"+sitePath)))
}

// sendFile answers with the file at sitePath and status, with the headers the static host gives urlPath. It
// reports false when there is no such file.
func (h *Host) sendFile(ctx *fasthttp.RequestCtx, urlPath, sitePath string, status int) bool {
	full := h.local(sitePath)
	fi, err := os.Stat(full)
	if err != nil || fi.IsDir() {
		return false
	}
	header := &ctx.Response.Header
	header.SetContentType(contentType(sitePath))
	for _, rule := range h.headers {
		if rule.Matches(urlPath) {
			for k, v := range rule.Values {
				header.Set(k, v)
			}
		}
	}
	etag := fmt.Sprintf(`W/"%x-%x"`, fi.Size(), fi.ModTime().UnixNano())
	header.Set("ETag", etag)
	if status == fasthttp.StatusOK && string(ctx.Request.Header.Peek("If-None-Match")) == etag {
		ctx.SetStatusCode(fasthttp.StatusNotModified)
		return true
	}
	data, err := os.ReadFile(full)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false
		}
		h.api.WriteError(ctx, fmt.Errorf("read %s: %w", full, err))
		return true
	}
	ctx.SetStatusCode(status)
	ctx.SetBody(data)
	return true
}

// staticMethodNotAllowed answers a method other than GET and HEAD on a file of the site: the JSON error envelope
// for a client that accepts JSON, a plain line naming the code otherwise; both with Allow.
func (h *Host) staticMethodNotAllowed(ctx *fasthttp.RequestCtx) {
	e := readOnly(ctx)
	if acceptsJSON(string(ctx.Request.Header.Peek("Accept"))) {
		h.api.WriteError(ctx, e)
		return
	}
	ctx.Error(fmt.Sprintf("405 %s: %s; use %s\n", e.Code, e.Message, e.Allow), fasthttp.StatusMethodNotAllowed)
	ctx.Response.Header.Set("Allow", e.Allow) // after Error, which resets the headers
}

// readOnly is METHOD_NOT_ALLOWED for a file of the site: GET and HEAD only.
func readOnly(ctx *fasthttp.RequestCtx) *errcode.Error {
	return &errcode.Error{Code: errcode.MethodNotAllowed, Allow: "GET, HEAD", Hint: "use GET, HEAD",
		Message: "method " + string(ctx.Method()) + " is not allowed here: the site's pages are read-only"}
}

// acceptsJSON reports whether an Accept header asks for JSON (application/json, or a +json type).
func acceptsJSON(accept string) bool {
	for _, part := range strings.Split(accept, ",") {
		t, _, _ := strings.Cut(strings.TrimSpace(part), ";")
		t = strings.ToLower(strings.TrimSpace(t))
		if t == "application/json" || (strings.HasPrefix(t, "application/") && strings.HasSuffix(t, "+json")) {
			return true
		}
	}
	return false
}

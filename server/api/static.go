package api

import (
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/valyala/fasthttp"
)

// contentTypes are the types of the files the build writes; anything else falls back to the mime package.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".md":   typeMarkdown,
	".txt":  typeText,
	".xml":  typeXML,
	".json": typeJSON,
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
func (s *Server) serveRewrite(ctx *fasthttp.RequestCtx, r Rule, vars map[string]string) {
	if !ctx.IsGet() && !ctx.IsHead() {
		s.writeError(ctx, methodNotAllowed(string(ctx.Method()), fasthttp.MethodGet, fasthttp.MethodHead))
		return
	}
	file := expand(r.To, vars)
	if !s.sendFile(ctx, string(ctx.Path()), file, r.Status) {
		s.writeError(ctx, fmt.Errorf("rule %s -> %s: %s is missing from %s", r.From, r.To, file, s.cfg.PublicDir))
	}
}

// serveFile answers a path of the built site as the static host does: "/x/" is x/index.html, "/x" naming a
// folder redirects to "/x/", and what is missing gets 404.html.
func (s *Server) serveFile(ctx *fasthttp.RequestCtx, urlPath string) {
	if !ctx.IsGet() && !ctx.IsHead() {
		ctx.Error("405 method not allowed: the site's pages are read-only\n", fasthttp.StatusMethodNotAllowed)
		ctx.Response.Header.Set("Allow", "GET, HEAD") // after Error, which resets the headers
		return
	}
	file := path.Clean("/" + urlPath)
	if strings.HasSuffix(urlPath, "/") {
		file = path.Join(file, "index.html")
	}
	if fi, err := os.Stat(s.local(file)); err == nil && fi.IsDir() {
		if _, err := os.Stat(s.local(path.Join(file, "index.html"))); err == nil {
			target := strings.TrimSuffix(urlPath, "/") + "/"
			if q := ctx.URI().QueryString(); len(q) > 0 {
				target += "?" + string(q)
			}
			ctx.Redirect(target, fasthttp.StatusMovedPermanently)
			return
		}
	}
	if s.sendFile(ctx, urlPath, file, fasthttp.StatusOK) {
		return
	}
	if s.sendFile(ctx, urlPath, "/404.html", fasthttp.StatusNotFound) {
		return
	}
	ctx.Error("404 not found\n", fasthttp.StatusNotFound)
}

// local turns a site path into a path under PublicDir; path.Clean of a rooted path cannot climb out of it.
func (s *Server) local(sitePath string) string {
	return filepath.Join(s.cfg.PublicDir, filepath.FromSlash(path.Clean("/"+sitePath)))
}

// sendFile answers with the file at sitePath and status, with the headers the static host gives urlPath. It
// reports false when there is no such file.
func (s *Server) sendFile(ctx *fasthttp.RequestCtx, urlPath, sitePath string, status int) bool {
	full := s.local(sitePath)
	fi, err := os.Stat(full)
	if err != nil || fi.IsDir() {
		return false
	}
	h := &ctx.Response.Header
	h.SetContentType(contentType(sitePath))
	for _, rule := range s.headers {
		if glob(rule.For, urlPath) {
			for k, v := range rule.Values {
				h.Set(k, v)
			}
		}
	}
	etag := fmt.Sprintf(`W/"%x-%x"`, fi.Size(), fi.ModTime().UnixNano())
	h.Set("ETag", etag)
	if status == fasthttp.StatusOK && string(ctx.Request.Header.Peek("If-None-Match")) == etag {
		ctx.SetStatusCode(fasthttp.StatusNotModified)
		return true
	}
	data, err := os.ReadFile(full)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false
		}
		s.writeError(ctx, fmt.Errorf("read %s: %w", full, err))
		return true
	}
	ctx.SetStatusCode(status)
	ctx.SetBody(data)
	return true
}

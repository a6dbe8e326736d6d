package api

import (
	"context"
	"net/http"
	"strings"
	"time"

	"twofold/server/logo"
	"twofold/server/og"
	"twofold/server/paths"
	"twofold/server/ratelimit"

	"github.com/valyala/fasthttp"
)

// writingWait is how long a request waits for the first fetch of the feed.
const writingWait = 8 * time.Second

// getWriting answers the feed's posts as {"success": true, "data": [WritingPost, ...]}, encoded once per fetch.
func (s *Server) getWriting(ctx *fasthttp.RequestCtx) {
	// A context of its own: one derived from fasthttp's RequestCtx would be read by a timer after the request ends.
	c, cancel := context.WithTimeout(context.Background(), writingWait)
	defer cancel()
	snap, err := s.writing.Snapshot(c)
	if err != nil {
		s.writeError(ctx, err)
		return
	}
	apiHeaders(ctx)
	ctx.Response.Header.Set("Cache-Control", "public, max-age=300")
	ctx.Response.Header.Set("Last-Modified", snap.FetchedAt.UTC().Format(http.TimeFormat))
	body := make([]byte, 0, len(snap.JSON)+32)
	body = append(body, `{"success":true,"data":`...)
	body = append(body, snap.JSON...)
	ctx.SetBody(append(body, '}'))
}

// getLogo answers a domain's logo, or its monogram.
func (s *Server) getLogo(ctx *fasthttp.RequestCtx) {
	raw, _ := ctx.UserValue("domain").(string)
	domain, err := logo.Normalize(raw)
	if err != nil {
		s.writeError(ctx, err)
		return
	}
	c, cancel := context.WithTimeout(context.Background(), logo.LookupTimeout)
	defer cancel()
	l, err := s.logos.Lookup(c, domain)
	if err != nil {
		s.writeError(ctx, err)
		return
	}
	maxAge := "public, max-age=86400"
	if l.Placeholder {
		maxAge = "public, max-age=3600"
		// A monogram opened on its own runs nothing and loads nothing.
		ctx.Response.Header.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox")
	}
	s.writeImage(ctx, l.ContentType, l.ETag, maxAge, l.Data)
}

// getOG answers an Open Graph image.
func (s *Server) getOG(ctx *fasthttp.RequestCtx) {
	query := ctx.URI().QueryString()
	if img, ok := s.og.ByQuery(query); ok {
		s.writeImage(ctx, "image/png", img.ETag, ogCacheControl, img.PNG)
		return
	}
	args := ctx.QueryArgs()
	p, err := og.Parse(string(args.Peek("title")), string(args.Peek("subtitle")), string(args.Peek("type")))
	if err != nil {
		s.writeError(ctx, err)
		return
	}
	if !s.og.Cached(p) {
		// Drawing costs milliseconds of CPU; answering from the cache costs nothing, so only drawing is limited.
		d := s.limits.og.Allow(ratelimit.Key(s.clientIP(ctx)))
		if !d.Allowed {
			s.metrics.RateLimited("og")
			s.writeError(ctx, d.Refusal(s.site.URL(paths.OpenAPI)))
			return
		}
	}
	img, err := s.og.Image(p)
	if err != nil {
		s.writeError(ctx, err)
		return
	}
	s.og.RememberQuery(query, p)
	s.writeImage(ctx, "image/png", img.ETag, ogCacheControl, img.PNG)
}

// ogCacheControl: an image is a function of its query, forever.
const ogCacheControl = "public, max-age=31536000, immutable"

// writeImage answers image bytes with their validator, or 304 when the client holds them already.
func (s *Server) writeImage(ctx *fasthttp.RequestCtx, contentType, etag, cacheControl string, data []byte) {
	h := &ctx.Response.Header
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", cacheControl)
	h.Set("ETag", etag)
	if inm := ctx.Request.Header.Peek("If-None-Match"); len(inm) > 0 && etagMatches(inm, etag) {
		ctx.SetStatusCode(fasthttp.StatusNotModified)
		return
	}
	h.SetContentType(contentType)
	ctx.SetStatusCode(fasthttp.StatusOK)
	if ctx.IsHead() {
		ctx.Response.SkipBody = true
		h.SetContentLength(len(data))
		return
	}
	ctx.Response.SetBodyRaw(data) // cached bytes, never changed
}

// etagMatches reads an If-None-Match list ("*", or tags, weak or strong; the weak comparison of RFC 9110).
func etagMatches(header []byte, etag string) bool {
	for _, t := range strings.Split(string(header), ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}

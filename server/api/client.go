package api

import (
	"bytes"
	"crypto/subtle"
	"net"
	"net/netip"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/valyala/fasthttp"
)

// clientIP is the address a request came from: the TCP peer, unless the request came through the operator's
// proxy (fromProxy); then the address the proxy names: with PROXY=netlify, Netlify's X-Nf-Client-Connection-Ip;
// otherwise the right-most address of X-Forwarded-For (all its header lines, in order) that is not a trusted proxy.
func (s *Server) clientIP(ctx *fasthttp.RequestCtx) netip.Addr {
	peer, _ := netip.AddrFromSlice(ctx.RemoteIP())
	peer = peer.Unmap()
	if !s.fromProxy(ctx, peer) {
		return peer
	}
	if s.cfg.ProxyNetlify {
		// Netlify sets the header; a request that carries it twice had one from elsewhere, and neither is believed.
		if lines := ctx.Request.Header.PeekAll("X-Nf-Client-Connection-Ip"); len(lines) == 1 {
			if nf, err := netip.ParseAddr(strings.TrimSpace(string(lines[0]))); err == nil {
				return nf.Unmap()
			}
		}
	}
	var hops []string
	for _, line := range ctx.Request.Header.PeekAll("X-Forwarded-For") {
		hops = append(hops, strings.Split(string(line), ",")...)
	}
	for i := len(hops) - 1; i >= 0; i-- {
		hop := strings.TrimSpace(hops[i])
		if h, _, err := net.SplitHostPort(hop); err == nil {
			hop = h
		}
		a, err := netip.ParseAddr(hop)
		if err != nil {
			break
		}
		a = a.Unmap()
		if !s.trusted(a) {
			return a
		}
		peer = a
	}
	return peer
}

// fromProxy reports whether a request came through the operator's proxy, whose forwarded headers are then
// believed. With PROXY_SECRET set, the request must prove it: an X-Proxy-Secret header equal to the secret, or
// (PROXY=netlify) Netlify's signed-proxy header X-Nf-Sign, a token signed with the secret; the peer must also be
// in TRUSTED_PROXIES when that is set. Without PROXY_SECRET, the peer must be in TRUSTED_PROXIES.
func (s *Server) fromProxy(ctx *fasthttp.RequestCtx, peer netip.Addr) bool {
	if s.cfg.ProxySecret == "" {
		return s.trusted(peer)
	}
	if len(s.cfg.TrustedProxies) > 0 && !s.trusted(peer) {
		return false
	}
	// Either proof will do; a wrong one of them (which anyone can add) does not cancel the other.
	if sent := ctx.Request.Header.Peek("X-Proxy-Secret"); len(sent) > 0 &&
		subtle.ConstantTimeCompare(bytes.TrimSpace(sent), []byte(s.cfg.ProxySecret)) == 1 {
		return true
	}
	return s.cfg.ProxyNetlify && netlifySigned(string(ctx.Request.Header.Peek("X-Nf-Sign")), s.cfg.ProxySecret, time.Now())
}

// netlifySigned verifies the X-Nf-Sign header of Netlify's signed proxy redirects (`signed = "VAR"` on the rule,
// VAR holding the secret): an HS256 token issued by "netlify" that has not expired. Netlify's tokens live five
// minutes; one that claims to live longer than maxSignLifetime was not made by Netlify for this request.
func netlifySigned(token, secret string, now time.Time) bool {
	if token == "" {
		return false
	}
	t, err := jwt.Parse(token, func(*jwt.Token) (any, error) { return []byte(secret), nil },
		jwt.WithValidMethods([]string{"HS256"}), jwt.WithIssuer("netlify"), jwt.WithExpirationRequired(),
		jwt.WithLeeway(30*time.Second), jwt.WithTimeFunc(func() time.Time { return now }))
	if err != nil {
		return false
	}
	exp, err := t.Claims.GetExpirationTime()
	return err == nil && exp.Sub(now) <= maxSignLifetime
}

// maxSignLifetime is the longest a proxy signature may still be valid for.
const maxSignLifetime = 15 * time.Minute

func (s *Server) trusted(a netip.Addr) bool {
	for _, p := range s.cfg.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

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
		if nf, err := netip.ParseAddr(strings.TrimSpace(string(ctx.Request.Header.Peek("X-Nf-Client-Connection-Ip")))); err == nil {
			return nf.Unmap()
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
	if sent := ctx.Request.Header.Peek("X-Proxy-Secret"); len(sent) > 0 {
		return subtle.ConstantTimeCompare(bytes.TrimSpace(sent), []byte(s.cfg.ProxySecret)) == 1
	}
	if s.cfg.ProxyNetlify {
		return netlifySigned(string(ctx.Request.Header.Peek("X-Nf-Sign")), s.cfg.ProxySecret)
	}
	return false
}

// netlifySigned verifies the X-Nf-Sign header of Netlify's signed proxy redirects (`signed = "VAR"` on the rule,
// VAR holding the secret): an HS256 token issued by "netlify" that has not expired.
func netlifySigned(token, secret string) bool {
	if token == "" {
		return false
	}
	_, err := jwt.Parse(token, func(*jwt.Token) (any, error) { return []byte(secret), nil },
		jwt.WithValidMethods([]string{"HS256"}), jwt.WithIssuer("netlify"), jwt.WithExpirationRequired(), jwt.WithLeeway(30*time.Second))
	return err == nil
}

func (s *Server) trusted(a netip.Addr) bool {
	for _, p := range s.cfg.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

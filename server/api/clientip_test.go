package api

import (
	"net"
	"net/netip"
	"testing"
	"time"

	"twofold/server/config"

	"github.com/golang-jwt/jwt/v5"
	"github.com/valyala/fasthttp"
)

const proxySecret = "a-shared-secret-of-at-least-32-chars!"

// netlifySign is the X-Nf-Sign header Netlify's signed proxy redirects send: an HS256 token issued by "netlify".
func netlifySign(t *testing.T, secret, issuer string, expires time.Time) string {
	t.Helper()
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
		"iss": issuer, "exp": expires.Unix(), "deploy_context": "production", "site_url": "https://site.example",
	}).SignedString([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestClientIP(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("127.0.0.1/32")}
	soon := time.Now().Add(5 * time.Minute)
	type request struct {
		peer   string
		xff    []string // one header line each
		nf     string
		nf2    string // a second X-Nf-Client-Connection-Ip line
		secret string // X-Proxy-Secret
		sign   string // X-Nf-Sign
	}
	tests := []struct {
		name string
		cfg  config.Config
		req  request
		want string
	}{
		{"no proxies: the peer, whatever the headers say", config.Config{},
			request{peer: "203.0.113.9", xff: []string{"198.51.100.1"}, nf: "198.51.100.2"}, "203.0.113.9"},
		{"untrusted peer: headers ignored", config.Config{TrustedProxies: trusted},
			request{peer: "203.0.113.9", xff: []string{"198.51.100.1"}}, "203.0.113.9"},
		{"trusted peer: right-most untrusted hop", config.Config{TrustedProxies: trusted},
			request{peer: "10.0.0.2", xff: []string{"198.51.100.1, 203.0.113.7, 10.0.0.5"}}, "203.0.113.7"},
		{"a forged left-most hop changes nothing", config.Config{TrustedProxies: trusted},
			request{peer: "10.0.0.2", xff: []string{"1.2.3.4, 203.0.113.7"}}, "203.0.113.7"},
		{"several header lines are one list, in order", config.Config{TrustedProxies: trusted},
			request{peer: "10.0.0.2", xff: []string{"1.2.3.4", "203.0.113.7, 10.0.0.9"}}, "203.0.113.7"},
		{"a forged line first changes nothing", config.Config{TrustedProxies: trusted},
			request{peer: "10.0.0.2", xff: []string{"10.9.9.9", "203.0.113.7"}}, "203.0.113.7"},
		{"Netlify's header is not believed unless the proxy is Netlify", config.Config{TrustedProxies: trusted},
			request{peer: "10.0.0.2", xff: []string{"198.51.100.1"}, nf: "198.51.100.77"}, "198.51.100.1"},
		{"PROXY=netlify: Netlify's header", config.Config{TrustedProxies: trusted, ProxyNetlify: true},
			request{peer: "10.0.0.2", xff: []string{"198.51.100.1"}, nf: "198.51.100.77"}, "198.51.100.77"},
		{"every hop trusted: the left-most", config.Config{TrustedProxies: trusted},
			request{peer: "127.0.0.1", xff: []string{"10.1.1.1, 10.2.2.2"}}, "10.1.1.1"},
		{"garbage hop stops the walk", config.Config{TrustedProxies: trusted},
			request{peer: "127.0.0.1", xff: []string{"198.51.100.1, nonsense"}}, "127.0.0.1"},
		{"hop with a port", config.Config{TrustedProxies: trusted},
			request{peer: "127.0.0.1", xff: []string{"[2001:db8::1]:443"}}, "2001:db8::1"},

		{"PROXY_SECRET: the right secret is believed from any peer", config.Config{ProxySecret: proxySecret},
			request{peer: "198.18.0.1", xff: []string{"203.0.113.7"}, secret: proxySecret}, "203.0.113.7"},
		{"PROXY_SECRET: without it, the peer", config.Config{ProxySecret: proxySecret},
			request{peer: "198.18.0.1", xff: []string{"203.0.113.7"}}, "198.18.0.1"},
		{"PROXY_SECRET: a wrong one, the peer", config.Config{ProxySecret: proxySecret},
			request{peer: "198.18.0.1", xff: []string{"203.0.113.7"}, secret: "guess"}, "198.18.0.1"},
		{"PROXY_SECRET and TRUSTED_PROXIES: both are required", config.Config{ProxySecret: proxySecret, TrustedProxies: trusted},
			request{peer: "198.18.0.1", xff: []string{"203.0.113.7"}, secret: proxySecret}, "198.18.0.1"},
		{"PROXY_SECRET: a trusted peer without the secret is not enough", config.Config{ProxySecret: proxySecret, TrustedProxies: trusted},
			request{peer: "10.0.0.2", xff: []string{"203.0.113.7"}}, "10.0.0.2"},
		{"Netlify signed proxy: a valid X-Nf-Sign", config.Config{ProxySecret: proxySecret, ProxyNetlify: true},
			request{peer: "198.18.0.1", nf: "203.0.113.8", sign: netlifySign(t, proxySecret, "netlify", soon)}, "203.0.113.8"},
		{"Netlify signed proxy: signed with another secret", config.Config{ProxySecret: proxySecret, ProxyNetlify: true},
			request{peer: "198.18.0.1", nf: "203.0.113.8", sign: netlifySign(t, "another-secret-of-at-least-32-chars", "netlify", soon)}, "198.18.0.1"},
		{"Netlify signed proxy: expired", config.Config{ProxySecret: proxySecret, ProxyNetlify: true},
			request{peer: "198.18.0.1", nf: "203.0.113.8", sign: netlifySign(t, proxySecret, "netlify", time.Now().Add(-time.Hour))}, "198.18.0.1"},
		{"Netlify signed proxy: another issuer", config.Config{ProxySecret: proxySecret, ProxyNetlify: true},
			request{peer: "198.18.0.1", nf: "203.0.113.8", sign: netlifySign(t, proxySecret, "someone", soon)}, "198.18.0.1"},
		{"Netlify signed proxy: a token that claims to live for a century", config.Config{ProxySecret: proxySecret, ProxyNetlify: true},
			request{peer: "198.18.0.1", nf: "203.0.113.8", sign: netlifySign(t, proxySecret, "netlify", time.Now().AddDate(100, 0, 0))}, "198.18.0.1"},
		{"Netlify signed proxy: a wrong X-Proxy-Secret does not cancel a valid signature", config.Config{ProxySecret: proxySecret, ProxyNetlify: true},
			request{peer: "198.18.0.1", nf: "203.0.113.8", secret: "x", sign: netlifySign(t, proxySecret, "netlify", soon)}, "203.0.113.8"},
		{"Netlify's header twice: neither is believed", config.Config{ProxySecret: proxySecret, ProxyNetlify: true},
			request{peer: "198.18.0.1", nf: "6.6.6.6", nf2: "203.0.113.8", xff: []string{"203.0.113.9"}, sign: netlifySign(t, proxySecret, "netlify", soon)}, "203.0.113.9"},
		{"X-Nf-Sign means nothing unless the proxy is Netlify", config.Config{ProxySecret: proxySecret},
			request{peer: "198.18.0.1", xff: []string{"203.0.113.7"}, sign: netlifySign(t, proxySecret, "netlify", soon)}, "198.18.0.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Server{cfg: tt.cfg}
			var ctx fasthttp.RequestCtx
			var req fasthttp.Request
			for _, line := range tt.req.xff {
				req.Header.Add("X-Forwarded-For", line)
			}
			set := func(k, v string) {
				if v != "" {
					req.Header.Set(k, v)
				}
			}
			set("X-Nf-Client-Connection-Ip", tt.req.nf)
			if tt.req.nf2 != "" {
				req.Header.Add("X-Nf-Client-Connection-Ip", tt.req.nf2)
			}
			set("X-Proxy-Secret", tt.req.secret)
			set("X-Nf-Sign", tt.req.sign)
			ctx.Init(&req, &net.TCPAddr{IP: net.ParseIP(tt.req.peer), Port: 5000}, nil)
			if got := s.clientIP(&ctx).String(); got != tt.want {
				t.Fatalf("clientIP = %s, want %s", got, tt.want)
			}
		})
	}
}

package api

import (
	"net"
	"net/netip"
	"testing"

	"twofold/server/config"

	"github.com/valyala/fasthttp"
)

func TestClientIP(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("127.0.0.1/32")}
	tests := []struct {
		name, peer, xff, nf, want string
		proxies                   []netip.Prefix
	}{
		{"no proxies: the peer, whatever the headers say", "203.0.113.9", "198.51.100.1", "198.51.100.2", "203.0.113.9", nil},
		{"untrusted peer: headers ignored", "203.0.113.9", "198.51.100.1", "", "203.0.113.9", trusted},
		{"trusted peer: right-most untrusted hop", "10.0.0.2", "198.51.100.1, 203.0.113.7, 10.0.0.5", "", "203.0.113.7", trusted},
		{"a forged left-most hop changes nothing", "10.0.0.2", "1.2.3.4, 203.0.113.7", "", "203.0.113.7", trusted},
		{"Netlify's header first", "10.0.0.2", "198.51.100.1", "198.51.100.77", "198.51.100.77", trusted},
		{"every hop trusted: the left-most", "127.0.0.1", "10.1.1.1, 10.2.2.2", "", "10.1.1.1", trusted},
		{"garbage hop stops the walk", "127.0.0.1", "198.51.100.1, nonsense", "", "127.0.0.1", trusted},
		{"hop with a port", "127.0.0.1", "[2001:db8::1]:443", "", "2001:db8::1", trusted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Server{cfg: config.Config{TrustedProxies: tt.proxies}}
			var ctx fasthttp.RequestCtx
			var req fasthttp.Request
			if tt.xff != "" {
				req.Header.Set("X-Forwarded-For", tt.xff)
			}
			if tt.nf != "" {
				req.Header.Set("X-Nf-Client-Connection-Ip", tt.nf)
			}
			ctx.Init(&req, &net.TCPAddr{IP: net.ParseIP(tt.peer), Port: 5000}, nil)
			if got := s.clientIP(&ctx).String(); got != tt.want {
				t.Fatalf("clientIP = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestLimitKey(t *testing.T) {
	for in, want := range map[string]string{
		"203.0.113.7":          "203.0.113.7",
		"2001:db8:1:2:aaaa::1": "2001:db8:1:2::/64",
		"2001:db8:1:2:ffff::9": "2001:db8:1:2::/64",
		"::ffff:198.51.100.4":  "::ffff:198.51.100.4",
		"2001:db8:1:3::1":      "2001:db8:1:3::/64",
	} {
		if got := limitKey(netip.MustParseAddr(in)); got != want {
			t.Errorf("limitKey(%s) = %s, want %s", in, got, want)
		}
	}
}

package logo

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"syscall"
	"time"
)

// Limits of every outside fetch.
const (
	FetchTimeout = 5 * time.Second
	MaxBodyBytes = 1 << 20
	MaxRedirects = 3
)

// ErrRefused is the guard's refusal: an address, port or scheme the fetcher will not reach.
var ErrRefused = errors.New("refused by the fetch guard")

// Fetcher fetches public http(s) resources and nothing else: ports 80 and 443 only, every address checked at dial
// time (the address dialled is the address checked, so a DNS answer that changes between lookups cannot pass),
// redirects followed at most MaxRedirects times and checked again, FetchTimeout and MaxBodyBytes per fetch.
//
// Resolve and Dial are the test seam: tests resolve names to public addresses of their choosing and dial those
// addresses to httptest servers. The guard stands between them and is the same in tests and in production.
type Fetcher struct {
	// Resolve returns a host's addresses; nil uses the system resolver.
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	// Dial connects to an address the guard has allowed; nil uses a net.Dialer that checks again at the socket.
	Dial func(ctx context.Context, network string, addr netip.AddrPort) (net.Conn, error)
	// TLS is the client's TLS configuration; nil is Go's default.
	TLS       *tls.Config
	UserAgent string

	client *http.Client
}

// Client returns the guarded HTTP client.
func (f *Fetcher) Client() *http.Client {
	if f.client != nil {
		return f.client
	}
	tr := &http.Transport{
		DialContext:           f.dial,
		TLSClientConfig:       f.TLS,
		TLSHandshakeTimeout:   FetchTimeout,
		ResponseHeaderTimeout: FetchTimeout,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       30 * time.Second,
		Proxy:                 nil, // never through a proxy the environment names: the guard must see the real address
	}
	f.client = &http.Client{
		Transport: tr,
		Timeout:   FetchTimeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > MaxRedirects {
				return fmt.Errorf("%w: more than %d redirects", ErrRefused, MaxRedirects)
			}
			return checkURL(req.URL)
		},
	}
	return f.client
}

// Get fetches a URL and returns its body, at most MaxBodyBytes; a larger body is an error, not a truncation.
func (f *Fetcher) Get(ctx context.Context, rawURL string) (body []byte, contentType string, final *url.URL, err error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, "", nil, err
	}
	if err := checkURL(u); err != nil {
		return nil, "", nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, FetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, "", nil, err
	}
	req.Header.Set("Accept", "text/html, application/manifest+json, image/png, image/*;q=0.9, */*;q=0.5")
	if f.UserAgent != "" {
		req.Header.Set("User-Agent", f.UserAgent)
	}
	resp, err := f.Client().Do(req)
	if err != nil {
		return nil, "", nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, "", nil, fmt.Errorf("%s answered %s", u.Host, resp.Status)
	}
	if resp.ContentLength > MaxBodyBytes {
		return nil, "", nil, fmt.Errorf("%s: body of %d bytes is over the cap", u.Host, resp.ContentLength)
	}
	body, err = io.ReadAll(io.LimitReader(resp.Body, MaxBodyBytes+1))
	if err != nil {
		return nil, "", nil, err
	}
	if len(body) > MaxBodyBytes {
		return nil, "", nil, fmt.Errorf("%s: body over %d bytes", u.Host, MaxBodyBytes)
	}
	return body, resp.Header.Get("Content-Type"), resp.Request.URL, nil
}

// checkURL allows http and https on their default ports only, to hosts that are not IP literals of a private kind.
func checkURL(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%w: scheme %q", ErrRefused, u.Scheme)
	}
	if u.User != nil {
		return fmt.Errorf("%w: credentials in the address", ErrRefused)
	}
	if p := u.Port(); p != "" && p != "80" && p != "443" {
		return fmt.Errorf("%w: port %s", ErrRefused, p)
	}
	if u.Hostname() == "" {
		return fmt.Errorf("%w: no host", ErrRefused)
	}
	if a, err := netip.ParseAddr(u.Hostname()); err == nil && !Public(a) {
		return fmt.Errorf("%w: address %s", ErrRefused, a)
	}
	return nil
}

// dial resolves the host, then dials the first allowed address; every address is checked before it is dialled.
func (f *Fetcher) dial(ctx context.Context, network, hostport string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return nil, err
	}
	if port != "80" && port != "443" {
		return nil, fmt.Errorf("%w: port %s", ErrRefused, port)
	}
	pn, _ := strconv.Atoi(port)
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else if addrs, err = f.resolve(ctx, host); err != nil {
		return nil, err
	}
	var firstErr error
	for _, a := range addrs {
		a = a.Unmap()
		if !Public(a) {
			if firstErr == nil {
				firstErr = fmt.Errorf("%w: %s resolves to %s", ErrRefused, host, a)
			}
			continue
		}
		conn, err := f.dialAddr(ctx, network, netip.AddrPortFrom(a, uint16(pn)))
		if err == nil {
			return conn, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if firstErr == nil {
		firstErr = fmt.Errorf("%s: no addresses", host)
	}
	return nil, firstErr
}

func (f *Fetcher) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if f.Resolve != nil {
		return f.Resolve(ctx, host)
	}
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

func (f *Fetcher) dialAddr(ctx context.Context, network string, addr netip.AddrPort) (net.Conn, error) {
	if f.Dial != nil {
		return f.Dial(ctx, network, addr)
	}
	d := net.Dialer{Timeout: FetchTimeout, Control: socketGuard}
	return d.DialContext(ctx, network, addr.String())
}

// socketGuard checks, once more, the address the socket is about to connect to.
func socketGuard(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrRefused, address)
	}
	if !Public(ap.Addr().Unmap()) || (ap.Port() != 80 && ap.Port() != 443) {
		return fmt.Errorf("%w: %s", ErrRefused, address)
	}
	return nil
}

// nonPublic are the ranges a fetch may never reach: IANA's special-purpose registries for IPv4 and IPv6 (this
// network, private, shared CGNAT, loopback, link-local, IETF protocol assignments, documentation, benchmarking,
// reserved, multicast, broadcast, NAT64, discard, ORCHID, unique local) and the IPv6 forms that embed an IPv4
// address (mapped, compatible, 6to4, Teredo), whose embedded address could be private.
var nonPublic = func() []netip.Prefix {
	var ps []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
		"192.0.0.0/24", "192.0.2.0/24", "192.31.196.0/24", "192.52.193.0/24", "192.88.99.0/24", "192.168.0.0/16",
		"192.175.48.0/24", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
		"::/96", "::1/128", "::ffff:0:0/96", "64:ff9b::/96", "64:ff9b:1::/48", "100::/64", "2001::/23",
		"2001:db8::/32", "2002::/16", "3fff::/20", "5f00::/16", "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8",
	} {
		ps = append(ps, netip.MustParsePrefix(s))
	}
	return ps
}()

// Public reports whether an address may be fetched from: a valid, global unicast address outside every range of
// nonPublic. 2001::/23 covers Teredo (2001::/32) and the other IETF assignments.
func Public(a netip.Addr) bool {
	if !a.IsValid() || a.Zone() != "" {
		return false
	}
	a = a.Unmap()
	if !a.IsGlobalUnicast() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

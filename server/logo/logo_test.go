package logo

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"twofold/server/errcode"
)

// world is the outside world of a test: names resolve to public-looking addresses the test chooses, and those
// addresses on ports 80 and 443 lead to httptest servers. Every other address leads to the sentinel, which counts
// connections: if the guard ever let a hostile address through, the sentinel would see it.
type world struct {
	t        *testing.T
	mu       sync.Mutex
	names    map[string][]netip.Addr
	lookups  map[string]int
	answers  map[string]func(n int) []netip.Addr // a name whose answer changes between lookups
	plain    map[netip.Addr]string               // address → listener of port 80
	tls      map[netip.Addr]string               // address → listener of port 443
	sentinel atomic.Int32
	sentAddr string
	next     byte
}

func newWorld(t *testing.T) *world {
	w := &world{t: t, names: map[string][]netip.Addr{}, lookups: map[string]int{}, answers: map[string]func(int) []netip.Addr{},
		plain: map[netip.Addr]string{}, tls: map[netip.Addr]string{}, next: 1}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	w.sentAddr = ln.Addr().String()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			w.sentinel.Add(1)
			c.Close()
		}
	}()
	return w
}

// host serves a handler as name, on a fresh public address, over http and https.
func (w *world) host(name string, h http.Handler) netip.Addr {
	w.mu.Lock()
	a := netip.AddrFrom4([4]byte{93, 184, 0, w.next})
	w.next++
	w.names[name] = []netip.Addr{a}
	w.mu.Unlock()
	p, s := httptest.NewServer(h), httptest.NewTLSServer(h)
	w.t.Cleanup(p.Close)
	w.t.Cleanup(s.Close)
	w.mu.Lock()
	w.plain[a], w.tls[a] = p.Listener.Addr().String(), s.Listener.Addr().String()
	w.mu.Unlock()
	return a
}

func (w *world) resolve(_ context.Context, host string) ([]netip.Addr, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lookups[host]++
	if f, ok := w.answers[host]; ok {
		return f(w.lookups[host]), nil
	}
	if a, ok := w.names[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func (w *world) dial(ctx context.Context, network string, addr netip.AddrPort) (net.Conn, error) {
	w.mu.Lock()
	target := w.sentAddr
	switch addr.Port() {
	case 80:
		if l, ok := w.plain[addr.Addr()]; ok {
			target = l
		}
	case 443:
		if l, ok := w.tls[addr.Addr()]; ok {
			target = l
		}
	}
	w.mu.Unlock()
	var d net.Dialer
	return d.DialContext(ctx, network, target)
}

func (w *world) fetcher() *Fetcher {
	return &Fetcher{Resolve: w.resolve, Dial: w.dial, TLS: &tls.Config{InsecureSkipVerify: true}}
}

// memCache is the store's cache in memory.
type memCache struct {
	mu   sync.Mutex
	m    map[string][]byte
	puts int
}

func (c *memCache) CacheGet(key string, now time.Time) ([]byte, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[key]
	if !ok || int64(binary.BigEndian.Uint64(v)) <= now.UnixNano() {
		return nil, false, nil
	}
	return v[8:], true, nil
}

func (c *memCache) CachePut(key string, value []byte, until time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string][]byte{}
	}
	c.m[key] = append(binary.BigEndian.AppendUint64(nil, uint64(until.UnixNano())), value...)
	c.puts++
	return nil
}

func pngBytes(t testing.TB, w, h int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = byte(i * 7)
	}
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
}

func jpegBytes(t testing.TB, w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = byte(i)
	}
	var b bytes.Buffer
	jpeg.Encode(&b, img, nil)
	return b.Bytes()
}

// icoBytes wraps a PNG in an ICO directory.
func icoBytes(p []byte) []byte {
	b := []byte{0, 0, 1, 0, 1, 0, 32, 32, 0, 0, 1, 0, 32, 0}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(p)))
	b = binary.LittleEndian.AppendUint32(b, 22)
	return append(b, p...)
}

func files(m map[string]string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, ok := m[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, body)
	}
}

func TestLookupSources(t *testing.T) {
	w := newWorld(t)
	big, small := pngBytes(t, 192, 192), pngBytes(t, 16, 16)
	w.host("linked.example.com", files(map[string]string{
		"/":             `<html><head><link rel="icon" href="/small.png" sizes="16x16"><link rel="icon" type="image/svg+xml" href="/logo.svg"><link rel="icon" href="big.png" sizes="192x192"></head><body></body></html>`,
		"/small.png":    string(small),
		"/big.png":      string(big),
		"/logo.svg":     `<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`,
		"/favicon.ico":  string(icoBytes(small)),
		"/manifest.txt": "",
	}))
	w.host("manifest.example.com", files(map[string]string{
		"/":                 `<link rel="manifest" href="/site.webmanifest">`,
		"/site.webmanifest": `{"icons":[{"src":"/m-512.jpg","sizes":"512x512","type":"image/jpeg"},{"src":"/m.svg","sizes":"any","type":"image/svg+xml"}]}`,
		"/m-512.jpg":        string(jpegBytes(t, 512, 512)),
	}))
	w.host("ico.example.com", files(map[string]string{"/favicon.ico": string(icoBytes(small))}))
	w.host("touch.example.com", files(map[string]string{"/": "<p>no links</p>", "/apple-touch-icon.png": string(big), "/favicon.ico": string(icoBytes(small))}))
	cache := &memCache{}
	s := &Service{Fetcher: w.fetcher(), Cache: cache}

	cases := []struct {
		domain, ctype string
		check         func([]byte) bool
	}{
		{"linked.example.com", "image/png", func(b []byte) bool { return bytes.Equal(b, big) }},
		{"manifest.example.com", "image/png", func(b []byte) bool {
			c, err := png.DecodeConfig(bytes.NewReader(b))
			return err == nil && c.Width == ConvertedSide && c.Height == ConvertedSide
		}},
		{"ico.example.com", "image/x-icon", func(b []byte) bool { return bytes.Equal(b, icoBytes(small)) }},
		{"touch.example.com", "image/png", func(b []byte) bool { return bytes.Equal(b, big) }},
	}
	for _, c := range cases {
		l, err := s.Lookup(context.Background(), c.domain)
		if err != nil || l.Placeholder || l.ContentType != c.ctype || !c.check(l.Data) {
			t.Errorf("%s: %v %v", c.domain, l, err)
		}
	}
	if n := w.sentinel.Load(); n != 0 {
		t.Errorf("sentinel saw %d connections", n)
	}
	// Cached: a second lookup fetches nothing, and a miss is remembered too.
	lookups := func() int {
		w.mu.Lock()
		defer w.mu.Unlock()
		n := 0
		for _, v := range w.lookups {
			n += v
		}
		return n
	}
	before := lookups()
	if l, _ := s.Lookup(context.Background(), "linked.example.com"); !bytes.Equal(l.Data, big) || lookups() != before {
		t.Errorf("a cached hit fetched again")
	}
	s.Lookup(context.Background(), "nothing.example.com")
	before = lookups()
	if l, _ := s.Lookup(context.Background(), "nothing.example.com"); !l.Placeholder || lookups() != before {
		t.Errorf("a cached miss fetched again")
	}
}

func TestConcurrentLookupsShareOneFetch(t *testing.T) {
	w := newWorld(t)
	var hits atomic.Int32
	icon := pngBytes(t, 64, 64)
	w.host("busy.example.com", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/apple-touch-icon.png" {
			hits.Add(1)
			time.Sleep(50 * time.Millisecond)
			rw.Write(icon)
			return
		}
		http.NotFound(rw, r)
	}))
	s := &Service{Fetcher: w.fetcher(), Cache: &memCache{}}
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			if l, err := s.Lookup(context.Background(), "busy.example.com"); err != nil || !bytes.Equal(l.Data, icon) {
				t.Errorf("%v %v", l, err)
			}
		})
	}
	wg.Wait()
	if n := hits.Load(); n != 1 {
		t.Errorf("%d fetches for 10 concurrent lookups", n)
	}
}

// The SSRF battery: hostile domains are refused before any fetch, and hostile answers, links and redirects are
// refused by the guard; the sentinel must see no connection.
func TestSSRFBattery(t *testing.T) {
	hostileDomains := []string{
		"127.0.0.1", "localhost", "localhost.", "0x7f000001", "2130706433", "017700000001", "127.1", "0177.0.0.1",
		"[::1]", "::1", "[::ffff:127.0.0.1]", "::ffff:127.0.0.1", "169.254.169.254", "10.0.0.1", "172.16.0.1",
		"192.168.1.1", "100.64.0.1", "0.0.0.0", "foo.localhost", "metadata.google.internal", "router.lan",
		"example.com:8080", "user@example.com", "example.com/path", "example.com?x=1", "a..b.com", "-bad.com",
		"bad-.com", strings.Repeat("a", 64) + ".com", strings.Repeat("abcdefghi.", 26) + "com", "com", "co.uk",
		"intranet", "", " ", "exa mple.com", "%31%32%37.0.0.1", "http://example.com", "ex\x00ample.com",
	}
	for _, d := range hostileDomains {
		if got, err := Normalize(d); !errcode.Is(err, errcode.DomainInvalid) {
			t.Errorf("Normalize(%q) = %q, %v; want DOMAIN_INVALID", d, got, err)
		}
	}

	w := newWorld(t)
	sentinelPort := strings.Split(w.sentAddr, ":")[1]
	svgScript := `<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(1)</script></svg>`
	public := w.host("decoy.example.com", files(map[string]string{"/": "<p>hello</p>"})) // a real public host, for rebinding
	w.names["loopback.example.com"] = []netip.Addr{netip.MustParseAddr("127.0.0.1")}
	w.names["private.example.com"] = []netip.Addr{netip.MustParseAddr("10.1.2.3")}
	w.names["metadata.example.com"] = []netip.Addr{netip.MustParseAddr("169.254.169.254")}
	w.names["cgnat.example.com"] = []netip.Addr{netip.MustParseAddr("100.64.1.1")}
	w.names["mapped.example.com"] = []netip.Addr{netip.MustParseAddr("::ffff:127.0.0.1")}
	w.names["sixtofour.example.com"] = []netip.Addr{netip.MustParseAddr("2002:7f00:1::1")}
	w.names["ula.example.com"] = []netip.Addr{netip.MustParseAddr("fd00::1")}
	w.names["zero.example.com"] = []netip.Addr{netip.MustParseAddr("0.0.0.0")}
	w.names["localhost"] = []netip.Addr{netip.MustParseAddr("127.0.0.1")}
	w.names["127.0.0.1.nip.io"] = []netip.Addr{netip.MustParseAddr("127.0.0.1")}
	// Rebinding: the first answer is public, every later one loopback.
	w.answers["rebind.example.com"] = func(n int) []netip.Addr {
		if n == 1 {
			return []netip.Addr{public}
		}
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}
	}
	w.host("redirects.example.com", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			http.Redirect(rw, r, "http://127.0.0.1/", http.StatusFound)
		case "/apple-touch-icon.png":
			http.Redirect(rw, r, "http://localhost/icon.png", http.StatusMovedPermanently)
		case "/favicon.ico":
			http.Redirect(rw, r, "http://127.0.0.1:"+sentinelPort+"/favicon.ico", http.StatusFound)
		}
	}))
	w.host("loop.example.com", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		http.Redirect(rw, r, r.URL.Path+"x", http.StatusFound)
	}))
	w.host("huge.example.com", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Write(pngSignature)
		rw.Write(make([]byte, 10<<20))
	}))
	w.host("endless.example.com", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Write(pngSignature)
		buf := make([]byte, 32<<10)
		for r.Context().Err() == nil {
			rand.Read(buf)
			if _, err := rw.Write(buf); err != nil {
				return
			}
		}
	}))
	w.host("svg.example.com", files(map[string]string{
		"/": `<link rel="icon" href="/i.svg"><link rel="icon" href="/i.png">`, "/i.svg": svgScript, "/i.png": svgScript,
		"/apple-touch-icon.png": svgScript, "/favicon.ico": svgScript,
	}))
	w.host("html.example.com", files(map[string]string{"/favicon.ico": "<html><script>alert(1)</script></html>", "/apple-touch-icon.png": "GIF89a not really"}))
	w.host("links.example.com", files(map[string]string{
		"/": `<link rel="apple-touch-icon" href="http://127.0.0.1/a.png"><link rel="icon" href="http://[::1]/b.png" sizes="512x512">` +
			`<link rel="icon" href="http://links.example.com:` + sentinelPort + `/c.png" sizes="256x256"><link rel="icon" href="file:///etc/passwd">` +
			`<link rel="icon" href="http://2130706433/d.png"><link rel="icon" href="http://0x7f.1/e.png"><link rel="manifest" href="http://169.254.169.254/latest/meta-data/">`,
	}))
	w.host("bomb.example.com", files(map[string]string{"/favicon.ico": string(pngHeader(100000, 100000))}))
	s := &Service{Fetcher: w.fetcher(), Cache: &memCache{}, Services: []string{"http://127.0.0.1/{domain}.ico", "http://localhost:" + sentinelPort + "/{domain}"}}

	hostileHosts := []string{
		"loopback.example.com", "private.example.com", "metadata.example.com", "cgnat.example.com", "mapped.example.com", "sixtofour.example.com",
		"ula.example.com", "zero.example.com", "127.0.0.1.nip.io", "rebind.example.com", "redirects.example.com", "loop.example.com",
		"huge.example.com", "endless.example.com", "svg.example.com", "html.example.com", "links.example.com", "bomb.example.com",
	}
	for _, h := range hostileHosts {
		d, err := Normalize(h)
		if err != nil {
			t.Fatalf("%s: %v", h, err)
		}
		if l, err := s.Lookup(context.Background(), d); err != nil || !l.Placeholder || l.ContentType != "image/svg+xml" {
			t.Errorf("%s: %v %v; want the placeholder", h, l, err)
		}
	}
	if got := len(hostileDomains) + len(hostileHosts); got < 30 {
		t.Errorf("only %d hostile inputs", got)
	}
	if n := w.sentinel.Load(); n != 0 {
		t.Fatalf("the sentinel saw %d connections", n)
	}
	// The sentinel does count: an unguarded dial reaches it.
	c, err := w.dial(context.Background(), "tcp", netip.MustParseAddrPort("127.0.0.1:80"))
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	for range 100 {
		if w.sentinel.Load() == 1 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if w.sentinel.Load() != 1 {
		t.Error("the sentinel does not count connections")
	}
}

// pngHeader is the start of a PNG that claims a size: it must be refused from its header, never decoded.
func pngHeader(w, h uint32) []byte {
	b := append([]byte{}, pngSignature...)
	b = append(b, 0, 0, 0, 13, 'I', 'H', 'D', 'R')
	b = binary.BigEndian.AppendUint32(b, w)
	b = binary.BigEndian.AppendUint32(b, h)
	b = append(b, 8, 6, 0, 0, 0, 0, 0, 0, 0) // depth, colour type, compression, filter, interlace, CRC (wrong)
	return b
}

func TestPublic(t *testing.T) {
	for _, a := range []string{"93.184.216.34", "8.8.8.8", "2606:4700::1111", "1.1.1.1"} {
		if !Public(netip.MustParseAddr(a)) {
			t.Errorf("%s should be public", a)
		}
	}
	for _, a := range []string{"127.0.0.1", "10.0.0.1", "172.31.255.255", "192.168.0.1", "100.64.0.1", "169.254.169.254",
		"0.0.0.0", "255.255.255.255", "224.0.0.1", "192.0.2.1", "198.18.0.1", "::1", "::", "fe80::1", "fc00::1",
		"::ffff:10.0.0.1", "64:ff9b::7f00:1", "2002:a00:1::", "2001::1", "2001:db8::1", "ff02::1", "::127.0.0.1"} {
		if Public(netip.MustParseAddr(a)) {
			t.Errorf("%s should not be public", a)
		}
	}
}

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"Example.COM": "example.com", "example.com.": "example.com", "bücher.de": "xn--bcher-kva.de",
		"www.bbc.co.uk": "www.bbc.co.uk", "user.github.io": "user.github.io", " example.org ": "example.org",
	} {
		if got, err := Normalize(in); err != nil || got != want {
			t.Errorf("Normalize(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestMonogram(t *testing.T) {
	for domain, initials := range map[string]string{"example.com": ">E<", "hacker-news.co.uk": ">HN<", "xn--bcher-kva.de": ">B<"} {
		if m := string(Monogram(domain)); !strings.Contains(m, initials) {
			t.Errorf("%s: %s", domain, m)
		}
	}
	a, b := Monogram("alpha.com"), Monogram("alpha.com")
	if !bytes.Equal(a, b) || bytes.Equal(Monogram("alpha.com"), Monogram("alpha.net")) {
		t.Error("monograms are not deterministic per domain")
	}
	// Whatever reaches it, the SVG's text is escaped.
	if m := string(Monogram(`a<b>&"c.com`)); strings.Contains(m, "<b>") || !strings.Contains(m, "&lt;b&gt;") {
		t.Errorf("not escaped: %s", m)
	}
}

func TestImage(t *testing.T) {
	p := pngBytes(t, 32, 32)
	if out, ct, err := Image(p); err != nil || ct != "image/png" || !bytes.Equal(out, p) {
		t.Errorf("PNG: %s %v", ct, err)
	}
	var gifBuf bytes.Buffer
	pal := image.NewPaletted(image.Rect(0, 0, 8, 8), color.Palette{color.Black, color.White})
	gifEncode(&gifBuf, pal)
	if out, ct, err := Image(gifBuf.Bytes()); err != nil || ct != "image/png" || !bytes.HasPrefix(out, pngSignature) {
		t.Errorf("GIF: %s %v", ct, err)
	}
	for name, bad := range map[string][]byte{
		"truncated PNG": p[:len(p)/2], "SVG": []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`), "empty": nil,
		"ICO pointing outside": append([]byte{0, 0, 1, 0, 1, 0, 16, 16, 0, 0, 1, 0, 32, 0, 0, 1, 0, 0, 0, 16, 0, 0}, 1, 2, 3),
		"huge PNG header":      pngHeader(1<<20, 1<<20),
	} {
		if _, _, err := Image(bad); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
}

func gifEncode(w *bytes.Buffer, img *image.Paletted) { gif.Encode(w, img, nil) }

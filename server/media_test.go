package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"twofold/server/apitest"
	"twofold/server/logo"
)

const feedXML = `<?xml version="1.0"?><rss version="2.0"><channel><title>Notes</title><link>https://notes.iriscalloway.example/</link>
<item><title>First post</title><link>/first</link><pubDate>Mon, 01 Sep 2025 08:00:00 GMT</pubDate><description>&lt;p&gt;One.&lt;/p&gt;</description></item>
<item><title>Second post</title><link>/second</link><pubDate>Tue, 02 Sep 2025 08:00:00 GMT</pubDate><enclosure url="/s.png" type="image/png" length="1"/></item>
</channel></rss>`

// testFeed serves feedXML on 127.0.0.1 for the test's lifetime.
func testFeed(t testing.TB) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, feedXML) }))
	t.Cleanup(srv.Close)
	return srv.URL + "/feed.xml"
}

// offline is a logo fetcher for which no name resolves: lookups end in the placeholder without leaving the machine.
func offline() *logo.Fetcher {
	return &logo.Fetcher{
		Resolve: func(_ context.Context, host string) ([]netip.Addr, error) {
			return nil, &net.DNSError{Err: "offline test", Name: host, IsNotFound: true}
		},
		Dial: func(context.Context, string, netip.AddrPort) (net.Conn, error) {
			return nil, fmt.Errorf("offline test")
		},
	}
}

func TestWritingRoute(t *testing.T) {
	base := startServer(t, nil)
	contract := apitest.NewContract(t)
	a := do(t, contract, "GET", base+"/api/writing")
	if a.status != 200 || !strings.Contains(a.body, `"title":"Second post","url":"https://notes.iriscalloway.example/second","imageUrl":"https://notes.iriscalloway.example/s.png"`) ||
		strings.Index(a.body, "Second post") > strings.Index(a.body, "First post") {
		t.Errorf("%d %s", a.status, a.body)
	}
	if a := do(t, contract, "POST", base+"/api/writing"); a.status != 405 || a.header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST: %d %v", a.status, a.header)
	}
	broken := httptest.NewServer(http.NotFoundHandler())
	defer broken.Close()
	down := startServer(t, map[string]string{"WRITING_FEED_URL": broken.URL})
	if a := do(t, contract, "GET", down+"/api/writing"); a.status != 502 || !strings.Contains(a.body, `"code":"FEED_FETCH_ERROR"`) || !strings.Contains(a.body, `"hint"`) {
		t.Errorf("no cached copy: %d %s", a.status, a.body)
	}
}

func TestLogoRoute(t *testing.T) {
	icon := func() []byte {
		var b bytes.Buffer
		png.Encode(&b, pngImage(48))
		return b.Bytes()
	}()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/apple-touch-icon.png" {
			w.Write(icon)
			return
		}
		http.NotFound(w, r)
	}))
	defer site.Close()
	var mu sync.Mutex
	dials := 0
	public := netip.MustParseAddr("93.184.216.34")
	fetcher := &logo.Fetcher{
		Resolve: func(_ context.Context, host string) ([]netip.Addr, error) {
			switch host {
			case "iconic.com":
				return []netip.Addr{public}, nil
			case "sneaky.com":
				return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
			}
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		},
		Dial: func(ctx context.Context, network string, a netip.AddrPort) (net.Conn, error) {
			mu.Lock()
			dials++
			mu.Unlock()
			if a.Addr() != public || a.Port() != 80 {
				return nil, fmt.Errorf("only http to the test host")
			}
			var d net.Dialer
			return d.DialContext(ctx, network, site.Listener.Addr().String())
		},
	}
	base := startServerWith(t, map[string]string{"RATE_LOGOS": "8"}, func(m *Main) { m.LogoFetcher = fetcher })
	contract := apitest.NewContract(t)

	a := do(t, contract, "GET", base+"/api/logo/ICONIC.com")
	if a.status != 200 || a.header.Get("Content-Type") != "image/png" || a.body != string(icon) || a.header.Get("ETag") == "" ||
		!strings.Contains(a.header.Get("Cache-Control"), "max-age") {
		t.Fatalf("logo: %d %v", a.status, a.header)
	}
	mu.Lock()
	afterFirst := dials
	mu.Unlock()
	req, _ := http.NewRequest("GET", base+"/api/logo/iconic.com", nil)
	req.Header.Set("If-None-Match", a.header.Get("ETag"))
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 304 {
		t.Errorf("If-None-Match: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	a = do(t, contract, "GET", base+"/api/logo/sneaky.com")
	if a.status != 200 || a.header.Get("Content-Type") != "image/svg+xml" || !strings.Contains(a.body, ">S<") {
		t.Errorf("a name resolving to loopback: %d %s", a.status, a.body)
	}
	for _, bad := range []string{"localhost", "127.0.0.1", "0x7f000001", "%5B::1%5D", "intranet"} {
		if a := do(t, contract, "GET", base+"/api/logo/"+bad); a.status != 400 || !strings.Contains(a.body, `"code":"DOMAIN_INVALID"`) {
			t.Errorf("%s: %d %s", bad, a.status, a.body)
		}
	}
	var last answer
	for range 8 {
		if last = do(t, contract, "GET", base+"/api/logo/iconic.com"); last.status == 429 {
			break
		}
	}
	if last.status != 429 || last.header.Get("Retry-After") == "" {
		t.Errorf("per-address limit: %d %v", last.status, last.header)
	}
	mu.Lock()
	defer mu.Unlock()
	if dials != afterFirst {
		t.Errorf("%d dials after the first lookup: the cache did not hold", dials-afterFirst)
	}
}

func TestOGRoute(t *testing.T) {
	base := startServer(t, nil)
	contract := apitest.NewContract(t)
	a := do(t, contract, "GET", base+"/api/og?title=Hello&subtitle=World&type=article")
	if a.status != 200 || a.header.Get("Content-Type") != "image/png" || a.header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
		t.Fatalf("%d %v", a.status, a.header)
	}
	img, err := png.Decode(strings.NewReader(a.body))
	if err != nil || img.Bounds().Dx() != 1200 || img.Bounds().Dy() != 630 {
		t.Fatalf("%v %v", img.Bounds(), err)
	}
	req, _ := http.NewRequest("GET", base+"/api/og?type=article&title=Hello&subtitle=World", nil)
	req.Header.Set("If-None-Match", a.header.Get("ETag"))
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 304 {
		t.Errorf("If-None-Match: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	for q, code := range map[string]string{
		"title=" + strings.Repeat("x", 121):    "TITLE_TOO_LONG",
		"subtitle=" + strings.Repeat("y", 201): "SUBTITLE_TOO_LONG",
		"type=poster":                          "TYPE_INVALID",
	} {
		if a := do(t, contract, "GET", base+"/api/og?"+q); a.status != 400 || !strings.Contains(a.body, `"code":"`+code+`"`) {
			t.Errorf("%s: %d %s", code, a.status, a.body)
		}
	}
	if a := do(t, contract, "GET", base+"/api/og"); a.status != 200 {
		t.Errorf("no parameters: %d", a.status)
	}
}

func pngImage(side int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, side, side))
	for i := range img.Pix {
		img.Pix[i] = byte(i * 3)
	}
	return img
}

package api

import (
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"twofold/server/config"
	"twofold/server/content"
	"twofold/site"
)

// A connection that sends nothing is closed when the read timeout passes, without an answer: a client that opened
// a spare connection must not find a 400 on it for a request it never sent. A request cut off half way still
// gets its 400.
func TestSilentConnectionIsClosedWithoutAnAnswer(t *testing.T) {
	s, _ := content.LoadSite(site.FS)
	srv := New(config.Config{Addr: "127.0.0.1:0"}, s, slog.New(slog.DiscardHandler), Deps{ReadTimeout: 200 * time.Millisecond})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	defer ln.Close()
	read := func(send string) string {
		conn, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.Write([]byte(send))
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		b, _ := io.ReadAll(conn)
		return string(b)
	}
	if got := read(""); got != "" {
		t.Fatalf("a silent connection was answered: %q", got)
	}
	if got := read("GET /api/health HTTP/1.1\r\nHost: x\r\n"); !strings.HasPrefix(got, "HTTP/1.1 400") {
		t.Fatalf("a request cut off half way: %q", got)
	}
}

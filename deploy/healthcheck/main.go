// Command healthcheck asks the server in the same container for GET /api/health and exits 0 when it answers 200.
//
// The container image has no shell and no curl, so its HEALTHCHECK runs this instead. It reads ADDR as the server
// does (default :8080) and asks the loopback address on that port; an address that names a host is asked as it is.
package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"
)

func main() {
	addr := os.Getenv("ADDR")
	if addr == "" {
		addr = ":8080"
	}
	if err := check(healthURL(addr), 5*time.Second); err != nil {
		fmt.Fprintln(os.Stderr, "healthcheck:", err)
		os.Exit(1)
	}
}

// healthURL is where a server listening on addr answers its health: on all interfaces, the loopback address.
func healthURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		host, port = "", "8080"
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/api/health"
}

// check answers nil when url answers 200 within timeout, and otherwise what it answered.
func check(url string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %s: %s", url, resp.Status, body)
	}
	return nil
}

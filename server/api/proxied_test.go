package api

import (
	"log/slog"
	"strings"
	"testing"

	"twofold/server/board"
	"twofold/server/config"
	"twofold/server/content"
	"twofold/server/host/rules"
	"twofold/server/paths"
	"twofold/site"
)

// Every dynamic route the server registers must be proxied to it by the static host.
func TestEveryEndpointIsProxied(t *testing.T) {
	s, err := content.LoadSite(site.FS)
	if err != nil {
		t.Fatal(err)
	}
	srv := New(config.Config{}, s, slog.New(slog.DiscardHandler), Deps{Board: &board.Service{}})
	if len(srv.apiRoutes()) == 0 {
		t.Fatal("no routes to check")
	}
	for _, e := range srv.apiRoutes() {
		proxied := false
		for _, r := range rules.Redirects(s.Pages) {
			if _, ok := paths.Match(r.From, strings.ReplaceAll(e.Path, ":", "x")); ok {
				proxied = r.Kind == rules.Dynamic
				break
			}
		}
		if !proxied {
			t.Errorf("%s %s is not proxied to the API server by the first matching rule", e.Method, e.Path)
		}
	}
}

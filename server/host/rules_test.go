package host

import (
	"testing"

	"twofold/server/host/rules"
	"twofold/server/paths"
)

func TestExpand(t *testing.T) {
	if got := expand("/api/collusion/:splat", map[string]string{"splat": "notes/1"}); got != "/api/collusion/notes/1" {
		t.Fatal(got)
	}
	if got := expand("/:page.md", map[string]string{"page": "about"}); got != "/:page.md" {
		t.Fatalf("only whole segments are placeholders, got %q", got)
	}
}

// Handle forwards the request's own path to the API for dynamic rules, without expanding To: that holds only
// while every dynamic rule's To is its From with the splat in place.
func TestDynamicRulesForwardThePath(t *testing.T) {
	for _, r := range rules.Redirects([]string{"index"}) {
		if r.Kind != rules.Dynamic {
			continue
		}
		for _, path := range []string{"/api/collusion/notes", "/api/collusion/notes/01K4282CM0E4A31XGP9T9R0FCK", "/api/mcp", "/api/logo/example.com", "/api/og", "/api/writing", "/api/other/thing"} {
			if vars, ok := paths.Match(r.From, path); ok && expand(r.To, vars) != path {
				t.Errorf("rule %s -> %s turns %s into %s", r.From, r.To, path, expand(r.To, vars))
			}
		}
	}
}

package host

import (
	"testing"

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

func TestGlob(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"/*", "/", true},
		{"/*", "/a/b.md", true},
		{"/*.md", "/about.md", true},
		{"/*.md", "/collusion/SKILL.md", true},
		{"/*.md", "/about/", false},
		{"/llms.txt", "/llms.txt", true},
		{"/llms.txt", "/llms-full.txt", false},
		{"/static/*", "/static/style.css", true},
		{"/static/*", "/statics", false},
	}
	for _, tt := range tests {
		if got := glob(tt.pattern, tt.path); got != tt.want {
			t.Errorf("glob(%q, %q) = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

// No two header rules that can match one path may set the same header: the static host would merge them.
func TestHeaderRulesDoNotOverlap(t *testing.T) {
	paths := []string{"/", "/about/", "/about.md", "/collusion/SKILL.md", "/api/md", "/api/md/about", "/llms.txt",
		"/llms-full.txt", "/sitemap.xml", "/api/sitemap.xml", "/openapi.json", "/.well-known/mcp.json", "/static/style.css", "/404.html"}
	for _, p := range paths {
		seen := map[string]string{}
		for _, r := range Headers() {
			if !glob(r.For, p) {
				continue
			}
			for k := range r.Values {
				if other, dup := seen[k]; dup {
					t.Errorf("%s: %s is set by both %s and %s", p, k, other, r.For)
				}
				seen[k] = r.For
			}
		}
	}
}

// Handle forwards the request's own path to the API for dynamic rules, without expanding To: that holds only
// while every dynamic rule's To is its From with the splat in place.
func TestDynamicRulesForwardThePath(t *testing.T) {
	for _, r := range Rules([]string{"index"}) {
		if r.Kind != Dynamic {
			continue
		}
		for _, path := range []string{"/api/collusion/notes", "/api/collusion/notes/01K4282CM0E4A31XGP9T9R0FCK", "/api/mcp", "/api/logo/example.com", "/api/og", "/api/writing", "/api/other/thing"} {
			if vars, ok := paths.Match(r.From, path); ok && expand(r.To, vars) != path {
				t.Errorf("rule %s -> %s turns %s into %s", r.From, r.To, path, expand(r.To, vars))
			}
		}
	}
}

package rules

import (
	"slices"
	"testing"
)

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
		if got := (Header{For: tt.pattern}).Matches(tt.path); got != tt.want {
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
			if !r.Matches(p) {
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

// _redirects holds the Static rules and netlify.toml the Dynamic ones, and Netlify applies the file first: the
// table must list every Static rule before every Dynamic one, or the two files would apply it out of order.
func TestStaticRulesComeFirst(t *testing.T) {
	table := Redirects([]string{"index", "about", "now"})
	firstDynamic := slices.IndexFunc(table, func(r Redirect) bool { return r.Kind == Dynamic })
	if firstDynamic < 0 {
		t.Fatal("no dynamic rule")
	}
	for _, r := range table[firstDynamic:] {
		if r.Kind == Static {
			t.Errorf("static rule %s -> %s comes after a dynamic one", r.From, r.To)
		}
	}
}

func TestEveryPageHasItsRule(t *testing.T) {
	table := Redirects([]string{"index", "now"})
	for _, want := range []Redirect{{From: "/api/md/index", To: "/index.md", Status: 200}, {From: "/api/md/now", To: "/now.md", Status: 200}} {
		i := slices.Index(table, want)
		catchAll := slices.IndexFunc(table, func(r Redirect) bool { return r.From == "/api/md/*" })
		if i < 0 || i > catchAll {
			t.Errorf("%s -> %s is missing or after the markdown 404", want.From, want.To)
		}
	}
}

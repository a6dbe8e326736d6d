package paths

import (
	"maps"
	"testing"
)

func TestMatch(t *testing.T) {
	tests := []struct {
		name, pattern, path string
		ok                  bool
		vars                map[string]string
	}{
		{"exact", "/api/md", "/api/md", true, nil},
		{"exact with trailing slash", "/api/md", "/api/md/", true, nil},
		{"longer path", "/api/md", "/api/md/about", false, nil},
		{"shorter path", "/api/md/about", "/api/md", false, nil},
		{"named segment", "/api/collusion/notes/:id", "/api/collusion/notes/01K", true, map[string]string{"id": "01K"}},
		{"empty named segment", "/api/collusion/notes/:id", "/api/collusion/notes/", false, nil},
		{"splat", "/api/collusion/*", "/api/collusion/notes/x", true, map[string]string{"splat": "notes/x"}},
		{"empty splat", "/api/md/*", "/api/md", true, map[string]string{"splat": ""}},
		{"splat elsewhere", "/api/logo/*", "/api/og", false, nil},
		{"root splat", "/*", "/", true, map[string]string{"splat": ""}},
		{"prefix is not a segment", "/api/md", "/api/mdx", false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vars, ok := Match(tt.pattern, tt.path)
			if ok != tt.ok || (ok && !maps.Equal(vars, tt.vars)) {
				t.Fatalf("Match(%q, %q) = %v, %v; want %v, %v", tt.pattern, tt.path, vars, ok, tt.vars, tt.ok)
			}
		})
	}
}

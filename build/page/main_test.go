package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"twofold/build/generate"
)

const siteYAML = `# The site.
title: Small Site
baseURL: https://small.example
owner:
  name: Sam Small

# Every page, in index order.
pages:
  - index   # the home page
  - about

nav:
  - {title: Home, page: index}
`

// smallSite writes a site with two pages and returns its folder.
func smallSite(t *testing.T, yaml string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"site.yaml":          yaml,
		"pages/index.md":     "---\ntitle: Home\ndescription: The home page.\n---\n\nHello.\n",
		"pages/about.md":     "---\ntitle: About\ndescription: Who.\n---\n\nMe.\n",
		"static/style.css":   "body{}\n",
		"static/favicon.svg": "<svg xmlns=\"http://www.w3.org/2000/svg\"/>\n",
		"openapi.json":       `{"openapi":"3.1.0","info":{"title":"t","version":"1.0.0"},"paths":{}}`,
		"collusion/SKILL.md": "---\nname: board\ndescription: d\n---\n",
	}
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestAddPage(t *testing.T) {
	dir := smallSite(t, siteYAML)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-site", dir, "-name", "now", "-title", `Iris's "Now"`}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "http://localhost:8080/now/") {
		t.Errorf("stdout = %q, want the page's local address", stdout.String())
	}
	got, _ := os.ReadFile(filepath.Join(dir, "site.yaml"))
	if want := strings.Replace(siteYAML, "  - about\n", "  - about\n  - now\n", 1); string(got) != want {
		t.Errorf("site.yaml =\n%s\nwant\n%s", got, want)
	}
	out := filepath.Join(t.TempDir(), "public")
	if _, err := generate.Build(context.Background(), generate.Options{SiteDir: dir, OutDir: out}); err != nil {
		t.Fatalf("the site with the new page does not build: %v", err)
	}
	html, err := os.ReadFile(filepath.Join(out, "now", "index.html"))
	if err != nil || !strings.Contains(string(html), "<h1>Iris&#39;s &#34;Now&#34;</h1>") {
		t.Errorf("now/index.html: %v\n%s", err, html)
	}
	redirects, _ := os.ReadFile(filepath.Join(out, "_redirects"))
	if !strings.Contains(string(redirects), "/api/md/now ") {
		t.Errorf("_redirects has no rule for the new page:\n%s", redirects)
	}
}

func TestAddPageFlowList(t *testing.T) {
	dir := smallSite(t, strings.Replace(siteYAML, "pages:\n  - index   # the home page\n  - about\n", "pages: [index, about]  # in order\n", 1))
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-site", dir, "-name", "now", "-title", "Now", "-description", "What I do now."}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	got, _ := os.ReadFile(filepath.Join(dir, "site.yaml"))
	if !strings.Contains(string(got), "pages: [index, about, now]  # in order\n") {
		t.Errorf("site.yaml =\n%s", got)
	}
	page, _ := os.ReadFile(filepath.Join(dir, "pages", "now.md"))
	if !strings.HasPrefix(string(page), "---\ntitle: Now\ndescription: What I do now.\n---\n") {
		t.Errorf("now.md =\n%s", page)
	}
}

func TestAddPageRefuses(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		setup func(dir string)
		code  int
		want  string
	}{
		{"listed page", []string{"-name", "about", "-title", "About"}, nil, 1, `"about" is a page already`},
		{"file not listed", []string{"-name", "draft", "-title", "Draft"}, func(dir string) {
			os.WriteFile(filepath.Join(dir, "pages", "draft.md"), []byte("---\n---\n"), 0o644)
		}, 1, "pages/draft.md exists already"},
		{"upper case", []string{"-name", "Now", "-title", "Now"}, nil, 1, `"Now" is not a page name: use lower-case letters, digits and dashes`},
		{"path", []string{"-name", "../now", "-title", "Now"}, nil, 1, "is not a page name"},
		{"space", []string{"-name", "my page", "-title", "Now"}, nil, 1, "is not a page name"},
		{"leading dash", []string{"-name", "-now", "-title", "Now"}, nil, 1, "is not a page name"},
		{"yaml", []string{"-name", "now: x", "-title", "Now"}, nil, 1, "is not a page name"},
		{"reserved", []string{"-name", "api", "-title", "API"}, nil, 1, `"api" cannot be a page: the API's addresses`},
		{"no name", []string{"-title", "Now"}, nil, 1, "-name is required"},
		{"no title", []string{"-name", "now"}, nil, 1, "-title is required"},
		{"two-line title", []string{"-name", "now", "-title", "Now\nthen"}, nil, 1, "one line each"},
		{"unquoted title", []string{"-name", "now", "-title", "Right", "now"}, nil, 2, `unexpected argument "now"`},
		{"no list", []string{"-name", "now", "-title", "Now"}, func(dir string) {
			os.WriteFile(filepath.Join(dir, "site.yaml"), []byte(strings.Replace(siteYAML, "pages:\n  - index   # the home page\n  - about\n", "pages: &p [index, about]\n", 1)), 0o644)
		}, 1, `add the line "  - now" at the end of its pages: list by hand`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := smallSite(t, siteYAML)
			if tt.setup != nil {
				tt.setup(dir)
			}
			before, _ := os.ReadFile(filepath.Join(dir, "site.yaml"))
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"-site", dir}, tt.args...), &stdout, &stderr)
			if code != tt.code || !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr.String(), tt.code, tt.want)
			}
			after, _ := os.ReadFile(filepath.Join(dir, "site.yaml"))
			if !bytes.Equal(before, after) {
				t.Error("site.yaml changed")
			}
			if _, err := os.Stat(filepath.Join(dir, "pages", "now.md")); err == nil {
				t.Error("pages/now.md was written")
			}
		})
	}
}

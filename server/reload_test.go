package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"twofold/build/generate"
)

// With SITE_DIR, the server reads the site from the folder, and Reload (SIGHUP, which make dev sends after each
// build) serves an edited site without a restart: a new page's /api/md, get_page and get_profile, an edited
// mirror; a site that does not load leaves the one being served in place.
func TestReloadServesTheEditedSite(t *testing.T) {
	dir := t.TempDir()
	siteDir, public := filepath.Join(dir, "site"), filepath.Join(dir, "public")
	if err := os.CopyFS(siteDir, os.DirFS("../site")); err != nil {
		t.Fatal(err)
	}
	build := func() {
		t.Helper()
		if _, err := generate.Build(context.Background(), generate.Options{SiteDir: siteDir, OutDir: public}); err != nil {
			t.Fatal(err)
		}
	}
	build()
	var m *Main
	base := startServerWith(t, map[string]string{"SITE_DIR": siteDir, "PUBLIC_DIR": public}, func(mm *Main) { m = mm })
	get := func(path string) (int, string) {
		t.Helper()
		a, _ := doChecked(t, nil, "GET", base+path)
		return a.status, a.body
	}
	page := func(id string) string {
		_, _, body := rpc(t, "POST", base+"/api/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_page","arguments":{"page":"`+id+`"}}}`, nil)
		return body
	}
	if status, _ := get("/api/md/now"); status != 404 {
		t.Fatalf("/api/md/now before the page exists: %d", status)
	}

	// Add a page, edit another, build, reload.
	os.WriteFile(filepath.Join(siteDir, "pages", "now.md"), []byte("---\ntitle: Now\ndescription: What I am doing now.\n---\nWriting a reload test.\n"), 0o644)
	yaml, _ := os.ReadFile(filepath.Join(siteDir, "site.yaml"))
	os.WriteFile(filepath.Join(siteDir, "site.yaml"), []byte(strings.Replace(string(yaml), "  - developers\n", "  - developers\n  - now\n", 1)), 0o644)
	about, _ := os.ReadFile(filepath.Join(siteDir, "pages", "about.md"))
	os.WriteFile(filepath.Join(siteDir, "pages", "about.md"), append(about, []byte("\nA sentence added while the server ran.\n")...), 0o644)
	build()
	if err := m.Reload(); err != nil {
		t.Fatal(err)
	}
	if status, body := get("/api/md/now"); status != 200 || !strings.Contains(body, "Writing a reload test.") {
		t.Errorf("/api/md/now after reload: %d %.200s", status, body)
	}
	if body := page("now"); !strings.Contains(body, "Writing a reload test.") {
		t.Errorf("get_page now after reload: %.300s", body)
	}
	if body := page("about"); !strings.Contains(body, "A sentence added while the server ran.") {
		t.Errorf("get_page about after reload: %.300s", body)
	}
	_, _, profile := rpc(t, "POST", base+"/api/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_profile","arguments":{}}}`, nil)
	if !strings.Contains(profile, `now.md`) {
		t.Errorf("get_profile after reload does not list the new page: %.300s", profile)
	}

	// A broken site.yaml: the reload fails and the site being served stays.
	os.WriteFile(filepath.Join(siteDir, "site.yaml"), []byte("title: [\n"), 0o644)
	if err := m.Reload(); err == nil {
		t.Error("a broken site.yaml reloaded")
	}
	if status, _ := get("/api/md/now"); status != 200 {
		t.Errorf("after a failed reload, /api/md/now: %d", status)
	}
}

package generate

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// An Update after a page's text changed leaves in the output exactly what a full build of the same sources
// writes (once FullText has run), and writes only that page, the lists of pages and llms-full.txt; a bad edit
// writes nothing; anything but page text is a full build.
func TestSessionUpdateMatchesAFullBuild(t *testing.T) {
	dir := t.TempDir()
	siteDir := filepath.Join(dir, "site")
	if err := os.CopyFS(siteDir, os.DirFS("../../site")); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "public")
	opts := Options{SiteDir: siteDir, OutDir: out, BaseURL: "http://localhost:8080"}
	s, _, err := NewSession(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	full := func() []byte { // what a full build of the sources as they are now writes
		t.Helper()
		o := opts
		o.OutDir = filepath.Join(t.TempDir(), "public")
		if _, err := Build(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		return snapshot(t, o.OutDir)
	}
	edit := func(name, old, new string) {
		t.Helper()
		p := filepath.Join(siteDir, name)
		b, _ := os.ReadFile(p)
		if !strings.Contains(string(b), old) {
			t.Fatalf("%s has no %q", name, old)
		}
		os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644)
		// A modification time of its own, as an editor's save gives (lastModified falls back on it).
		later := time.Now().Add(time.Hour)
		os.Chtimes(p, later, later)
	}

	untouched, _ := os.Stat(filepath.Join(out, "founders", "index.html"))
	edit("pages/about.md", "I grew up in Leeds", "I grew up in Leeds, mostly")
	report, err := s.Update(context.Background(), []string{"pages/about.md"})
	if err != nil {
		t.Fatal(err)
	}
	if report.Files > 8 { // the page, its mirror, llms.txt, the sitemaps, the markdown index
		t.Errorf("an Update of one page wrote %d files", report.Files)
	}
	if after, _ := os.Stat(filepath.Join(out, "founders", "index.html")); !os.SameFile(untouched, after) {
		t.Error("an Update of one page rewrote another")
	}
	if page, _ := os.ReadFile(filepath.Join(out, "about", "index.html")); !bytes.Contains(page, []byte("I grew up in Leeds, mostly")) {
		t.Error("the page was not rendered again")
	}
	if err := s.FullText(); err != nil {
		t.Fatal(err)
	}
	if got, want := snapshot(t, out), full(); !bytes.Equal(got, want) {
		t.Errorf("after Update and FullText, the output differs from a full build:\n%s", lineDiff(want, got))
	}

	// A bad edit writes nothing and says where.
	before := snapshot(t, out)
	edit("pages/about.md", "title:", "titel:")
	if _, err := s.Update(context.Background(), []string{"pages/about.md"}); err == nil || !strings.Contains(err.Error(), `pages/about.md:2: unknown front-matter key "titel"`) {
		t.Fatalf("a bad edit: %v", err)
	}
	if !bytes.Equal(snapshot(t, out), before) {
		t.Error("a failed Update changed the output")
	}
	edit("pages/about.md", "titel:", "title:")

	// A new title is in the indexes: a full build, the same as Build's.
	edit("pages/about.md", "title: About Iris", "title: About Iris Calloway")
	if _, err := s.Update(context.Background(), []string{"pages/about.md"}); err != nil {
		t.Fatal(err)
	}
	if got, want := snapshot(t, out), full(); !bytes.Equal(got, want) {
		t.Errorf("after a title change, the output differs from a full build:\n%s", lineDiff(want, got))
	}
	// site.yaml: a full build.
	edit("site.yaml", "location: Lisbon, Portugal", "location: Porto, Portugal")
	if _, err := s.Update(context.Background(), []string{"site.yaml"}); err != nil {
		t.Fatal(err)
	}
	if got, want := snapshot(t, out), full(); !bytes.Equal(got, want) {
		t.Errorf("after a site.yaml change, the output differs from a full build:\n%s", lineDiff(want, got))
	}
}

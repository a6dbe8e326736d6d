package generate

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"twofold/server/content"
	"twofold/server/mcp"

	"golang.org/x/tools/txtar"
	"gopkg.in/yaml.v3"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// writeSite unpacks a txtar archive into a fresh folder and returns it.
func writeSite(t *testing.T, archive *txtar.Archive) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range archive.Files {
		p := filepath.Join(dir, f.Name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func loadArchive(t *testing.T, name string) *txtar.Archive {
	t.Helper()
	a, err := txtar.ParseFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func build(t *testing.T, siteDir string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "public")
	if _, err := Build(context.Background(), Options{SiteDir: siteDir, OutDir: out}); err != nil {
		t.Fatalf("Build: %v", err)
	}
	return out
}

// snapshot packs a built folder into one txtar archive, files in name order.
func snapshot(t *testing.T, dir string) []byte {
	t.Helper()
	var a txtar.Archive
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		a.Files = append(a.Files, txtar.File{Name: filepath.ToSlash(rel), Data: data})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return txtar.Format(&a)
}

func TestGoldenSmallSite(t *testing.T) {
	out := build(t, writeSite(t, loadArchive(t, "small-site.txtar")))
	got := snapshot(t, out)
	golden := filepath.Join("testdata", "small-site.golden")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./build/generate -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s; run `make golden` and review the diff", golden)
		gotA, wantA := txtar.Parse(got), txtar.Parse(want)
		for i := range min(len(gotA.Files), len(wantA.Files)) {
			if gotA.Files[i].Name != wantA.Files[i].Name || !bytes.Equal(gotA.Files[i].Data, wantA.Files[i].Data) {
				t.Fatalf("first difference in %s:\n%s", gotA.Files[i].Name, lineDiff(wantA.Files[i].Data, gotA.Files[i].Data))
			}
		}
		t.Fatalf("files: got %d, want %d", len(gotA.Files), len(wantA.Files))
	}
}

// The golden site says what must be in the output, not just that it did not change.
func TestSmallSiteOutputs(t *testing.T) {
	out := build(t, writeSite(t, loadArchive(t, "small-site.txtar")))
	read := func(p string) string {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(out, p))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	home := read("index.html")
	for _, want := range []string{
		`<html lang="en">`,
		`<title>Small Site</title>`,
		`<link rel="canonical" href="https://small.example/">`,
		`<link rel="alternate" type="text/markdown" href="/index.md"`,
		`content="https://small.example/api/og?subtitle=The+home+of+a+%22small%22+site+%26+its+%3Ctests%3E.&amp;title=Small+Site&amp;type=default"`,
		`<h2 id="hello">Hello</h2>`,
		`&ldquo;Quotes&rdquo; &ndash; and dashes`,
		`<a href="/" aria-current="page">Home</a>`,
		`<a href="/llms.txt">llms.txt</a>`,
		`<a href="/openapi.json">openapi.json</a>`,
		`<a href="/collusion/">Collusion wiki</a>`,
		`<table>`,
	} {
		if !strings.Contains(home, want) {
			t.Errorf("index.html lacks %s", want)
		}
	}
	if strings.Contains(home, "<script>") {
		t.Error("raw HTML from markdown reached the page")
	}
	board := read("collusion/index.html")
	for _, want := range []string{`<title>Board · Small Site</title>`, `property="og:type" content="article"`, `&lt;b&gt;not bold&lt;/b&gt;`, `id="note-01K428W0Y09MQMPSMCZH4EC1CX"`, `via genesis`,
		`<p class="board-status" role="status">These are the 2 notes the board opened with, newest first.`} {
		if !strings.Contains(board, want) {
			t.Errorf("board/index.html lacks %s", want)
		}
	}
	if strings.Index(board, "A reply.") > strings.Index(board, "not bold") {
		t.Error("board notes are not newest first")
	}
	mirror := read("collusion.md")
	if !strings.HasPrefix(mirror, "---\ntitle: Board instructions\ndescription: For agents.\nurl: https://small.example/collusion/\nlastModified: 2026-03-06T00:00:00Z\n---\n\n# Instructions\n") {
		t.Errorf("collusion.md is the page's stand-in with the page's address; got\n%s", mirror)
	}
	if got := read("md/404.md"); !strings.Contains(got, "- [Small Site](https://small.example/index.md) (`index`)") {
		t.Errorf("markdown 404 does not list the pages:\n%s", got)
	}
	full := read("llms-full.txt")
	if !strings.Contains(full, "<!-- https://small.example/collusion.md -->\n\n"+mirror) || !strings.Contains(full, read("index.md")) {
		t.Errorf("llms-full.txt does not hold every mirror under its address")
	}
	robots := read("robots.txt")
	if !strings.Contains(robots, "Sitemap: https://small.example/sitemap.xml") {
		t.Errorf("robots.txt = %q", robots)
	}
}

func TestRealSiteBuilds(t *testing.T) {
	out := build(t, "../../site")
	read := func(p string) []byte {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(out, p))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	ids := []string{"index", "about", "founders", "projects", "essays", "podcasts", "family", "experiments", "founder-testimonials", "developers", "collusion"}
	for _, id := range ids {
		t.Run(id, func(t *testing.T) {
			html := htmlPath(id)
			checkHTML(t, html, read(html))
			want := map[string]string{"index": `<script src="/static/home.js?v=`, "collusion": `<script src="/static/board.js?v=`}[id]
			if got := string(read(html)); (want == "" && strings.Contains(got, "<script")) || !strings.Contains(got, want) {
				t.Errorf("%s: the scripts are not the page's (want %q)", html, want)
			}
			var fm content.MirrorFrontMatter
			mirror := read("/" + id + ".md")
			parts := strings.SplitN(string(mirror), "---\n", 3)
			if len(parts) != 3 || parts[0] != "" {
				t.Fatalf("%s.md does not start with front matter", id)
			}
			if err := yaml.Unmarshal([]byte(parts[1]), &fm); err != nil {
				t.Fatal(err)
			}
			if fm.Title == "" || fm.Description == "" || fm.LastModified.IsZero() || !strings.HasPrefix(fm.URL, "https://iriscalloway.example/") {
				t.Fatalf("front matter of %s.md = %+v", id, fm)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(out, "404.html")); err != nil {
		t.Error(err)
	}
	checkHTML(t, "404.html", read("404.html"))

	llms := string(read("llms.txt"))
	if !strings.HasPrefix(llms, "# Iris Calloway\n\n> ") || !strings.Contains(llms, "\n## Optional\n") {
		t.Errorf("llms.txt lacks its title, summary or Optional section")
	}
	for _, id := range ids {
		if !strings.Contains(llms, "](https://iriscalloway.example/"+id+".md): ") {
			t.Errorf("llms.txt does not link the %s mirror", id)
		}
	}
	for _, want := range []string{"/openapi.json)", "/api/mcp)", "/.well-known/mcp.json)", "/collusion/SKILL.md)", "/llms-full.txt)"} {
		if !strings.Contains(llms, want) {
			t.Errorf("llms.txt does not link %s", want)
		}
	}

	var sitemap struct {
		URLs []struct {
			Loc     string `xml:"loc"`
			LastMod string `xml:"lastmod"`
		} `xml:"url"`
	}
	if err := xml.Unmarshal(read("sitemap.xml"), &sitemap); err != nil {
		t.Fatal(err)
	}
	if len(sitemap.URLs) != len(ids) || sitemap.URLs[0].Loc != "https://iriscalloway.example/" || sitemap.URLs[1].LastMod == "" {
		t.Errorf("sitemap = %+v", sitemap.URLs)
	}

	var manifest mcpManifest
	if err := json.Unmarshal(read(".well-known/mcp.json"), &manifest); err != nil {
		t.Fatal(err)
	}
	var names, want []string
	for _, tool := range manifest.Tools {
		names = append(names, tool.Name)
	}
	for _, tool := range mcp.Tools(nil) {
		want = append(want, tool.Name)
	}
	if !slices.Equal(names, want) || len(names) != 7 || manifest.Remotes[0].URL != "https://iriscalloway.example/api/mcp" || manifest.Remotes[0].Type != "streamable-http" {
		t.Errorf("manifest = %+v", manifest)
	}
	if !bytes.Equal(read("openapi.json"), mustRead(t, "../../site/openapi.json")) {
		t.Error("openapi.json is not the committed description")
	}
	if !bytes.HasPrefix(read("collusion/SKILL.md"), []byte("---\nname: ")) {
		t.Error("SKILL.md is missing its front matter")
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestDeterministic(t *testing.T) {
	a := snapshot(t, build(t, "../../site"))
	b := snapshot(t, build(t, "../../site"))
	if !bytes.Equal(a, b) {
		t.Fatal("two builds of the same site differ")
	}
}

// A failed build names the problem and leaves the previous output exactly as it was.
func TestBadContent(t *testing.T) {
	base := loadArchive(t, "small-site.txtar")
	tests := []struct {
		name    string
		file    string // replaced or added
		data    string
		wantErr string
	}{
		{"page without title", "pages/index.md", "---\ndescription: D\n---\nHi\n", "pages/index.md:1: front matter has no title"},
		{"page without description", "pages/index.md", "---\ntitle: T\n---\nHi\n", "pages/index.md:1: front matter has no description"},
		{"malformed front matter", "pages/index.md", "---\ntitle: T\ndescription: D\nwhat: : :\n---\nHi\n", "pages/index.md:4: malformed front matter"},
		{"unclosed front matter", "pages/index.md", "---\ntitle: T\ndescription: D\n\nHi\n", "pages/index.md:1: front matter is not closed by a --- line"},
		{"page outside the site", "pages/blog.md", "---\ntitle: T\ndescription: D\n---\nHi\n", `pages/blog.md: page id "blog" is not one of the site's pages`},
		{"link to a missing page", "pages/index.md", "---\ntitle: T\ndescription: D\n---\n\nIntro.\n\nSee [the blog](/blog/) too.\n", `pages/index.md:8: link to "/blog/", which is not a page or file of this site`},
		{"link to a missing mirror", "pages/index.md", "---\ntitle: T\ndescription: D\n---\nRead [it](https://small.example/blog.md).\n", `pages/index.md:5: link to "https://small.example/blog.md"`},
		{"link to a missing API page", "pages/index.md", "---\ntitle: T\ndescription: D\n---\nRead [it](/api/md/blog).\n", `pages/index.md:5: link to "/api/md/blog"`},
		{"relative link to a missing page", "pages/collusion.md", "---\ntitle: T\ndescription: D\nlayout: board\n---\n\nSee [next](next/).\n", `pages/collusion.md:7: link to "next/"`},
		{"broken link in the mirror stand-in", "collusion/collusion.md", "---\ntitle: T\ndescription: D\n---\nSee [x](/nowhere/).\n", `collusion/collusion.md:5: link to "/nowhere/"`},
		{"unknown front-matter key", "pages/index.md", "---\ntitle: T\ndescription: D\ndate: 2026-01-01\n---\nHi\n", `pages/index.md:4: unknown front-matter key "date" (the keys are title, description, lastModified, type, mirror, layout, draft)`},
		{"bad date", "pages/index.md", "---\ntitle: T\ndescription: D\nlastModified: 2026-02-30\n---\nHi\n", `pages/index.md:4: lastModified "2026-02-30" is not a date`},
		{"home page as a draft", "pages/index.md", "---\ntitle: T\ndescription: D\ndraft: true\n---\nHi\n", "pages/index.md:4: the home page cannot be a draft"},
		{"bad genesis", "collusion/genesis.yaml", "- id: nope\n", "collusion/genesis.yaml: note 1 (nope): id must be a ULID"},
		{"site.yaml", "site.yaml", "title: [\n", "site.yaml:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &txtar.Archive{Files: slices.Clone(base.Files)}
			replaced := false
			for i := range a.Files {
				if a.Files[i].Name == tt.file {
					a.Files[i].Data, replaced = []byte(tt.data), true
				}
			}
			if !replaced {
				a.Files = append(a.Files, txtar.File{Name: tt.file, Data: []byte(tt.data)})
			}
			siteDir := writeSite(t, a)
			parent := t.TempDir()
			out := filepath.Join(parent, "public")
			os.MkdirAll(out, 0o755)
			os.WriteFile(filepath.Join(out, "previous.html"), []byte("old"), 0o644)

			_, err := Build(context.Background(), Options{SiteDir: siteDir, OutDir: out})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v\nwant it to contain %q", err, tt.wantErr)
			}
			entries, _ := os.ReadDir(parent)
			if len(entries) != 1 {
				t.Errorf("the build left %d entries beside the output, want none", len(entries)-1)
			}
			entries, _ = os.ReadDir(out)
			if len(entries) != 1 || entries[0].Name() != "previous.html" {
				t.Errorf("the previous output was changed: %v", entries)
			}
		})
	}
}

// Every broken link of every file is reported in one run, each with its file and line.
func TestEveryBrokenLink(t *testing.T) {
	a := loadArchive(t, "small-site.txtar")
	for i := range a.Files {
		switch a.Files[i].Name {
		case "pages/index.md":
			a.Files[i].Data = []byte("---\ntitle: T\ndescription: D\n---\nSee [one](/one/),\n[two](/two/) and ![three](/three.png).\n")
		case "pages/collusion.md":
			a.Files[i].Data = append(a.Files[i].Data, []byte("\nAnd [four](/four/).\n")...)
		}
	}
	_, err := Build(context.Background(), Options{SiteDir: writeSite(t, a), OutDir: filepath.Join(t.TempDir(), "public")})
	if err == nil {
		t.Fatal("a site with broken links built")
	}
	for _, want := range []string{`pages/index.md:5: link to "/one/"`, `pages/index.md:6: link to "/two/"`, `pages/index.md:6: link to "/three.png"`, `link to "/four/"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not report %s:\n%v", want, err)
		}
	}
}

// A page whose front matter says draft: true is left out of everything the build writes: its page and mirror, the
// navigation, the indexes and the sitemap; a link to it from a published page is a broken link.
func TestDrafts(t *testing.T) {
	a := loadArchive(t, "small-site.txtar")
	for i := range a.Files {
		if a.Files[i].Name == "site.yaml" {
			y := strings.Replace(string(a.Files[i].Data), "pages: [index, collusion]", "pages: [index, later, collusion]", 1)
			y = strings.Replace(y, "  - {title: Board, page: collusion}", "  - {title: Board, page: collusion}\n  - {title: Later, page: later}", 1)
			a.Files[i].Data = []byte(y)
		}
	}
	a.Files = append(a.Files, txtar.File{Name: "pages/later.md", Data: []byte("---\ntitle: Not yet\ndescription: Coming soon.\ndraft: true\n---\nA secret plan.\n")})
	siteDir := writeSite(t, a)
	out := filepath.Join(t.TempDir(), "public")
	report, err := Build(context.Background(), Options{SiteDir: siteDir, OutDir: out})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(report.Drafts, ",") != "later" || report.Pages != 2 {
		t.Errorf("report: %d pages, drafts %v; want 2 and [later]", report.Pages, report.Drafts)
	}
	filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(out, p)
		if strings.Contains(rel, "later") {
			t.Errorf("the draft was written: %s", rel)
		}
		if b, _ := os.ReadFile(p); strings.Contains(string(b), "/later") || strings.Contains(string(b), "secret plan") || strings.Contains(string(b), "Not yet") {
			t.Errorf("%s names the draft", rel)
		}
		return nil
	})
	// make dev builds drafts too, each with a banner.
	dev := filepath.Join(t.TempDir(), "public")
	if _, err := Build(context.Background(), Options{SiteDir: siteDir, OutDir: dev, Drafts: true}); err != nil {
		t.Fatal(err)
	}
	if page, err := os.ReadFile(filepath.Join(dev, "later", "index.html")); err != nil || !strings.Contains(string(page), `class="draft-banner"`) || !strings.Contains(string(page), "A secret plan.") {
		t.Errorf("the draft with Drafts: %v %.200s", err, page)
	}
	if page, _ := os.ReadFile(filepath.Join(dev, "index.html")); strings.Contains(string(page), "draft-banner") {
		t.Error("a published page has the draft banner")
	}
	// A published page that links to the draft breaks the build, as a link to any missing page does.
	for i := range a.Files {
		if a.Files[i].Name == "pages/index.md" {
			a.Files[i].Data = append(a.Files[i].Data, []byte("\nSoon: [later](/later/).\n")...)
		}
	}
	if _, err := Build(context.Background(), Options{SiteDir: writeSite(t, a), OutDir: out}); err == nil || !strings.Contains(err.Error(), `link to "/later/"`) {
		t.Errorf("a link to a draft: %v", err)
	}
}

// Pages without lastModified take their last git commit time, or else their modification time.
func TestLastModifiedFallback(t *testing.T) {
	a := loadArchive(t, "small-site.txtar")
	for i, f := range a.Files {
		if f.Name == "pages/index.md" {
			a.Files[i].Data = bytes.Replace(f.Data, []byte("lastModified: 2026-03-04T05:06:07Z\n"), nil, 1)
		}
	}
	dir := writeSite(t, a)
	mtime := mustTime(t, "2024-02-03T04:05:06Z")
	if err := os.Chtimes(filepath.Join(dir, "pages/index.md"), mtime, mtime); err != nil {
		t.Fatal(err)
	}
	out := build(t, dir)
	if got := string(mustRead(t, filepath.Join(out, "index.md"))); !strings.Contains(got, "lastModified: 2024-02-03T04:05:06Z\n") {
		t.Fatalf("index.md does not carry the file's modification time:\n%s", got)
	}
}

// lineDiff shows where two texts first part: the lines around it, "-" as wanted and "+" as got.
func lineDiff(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	var b strings.Builder
	if i < len(w) && i < len(g) && len(w[i])+len(g[i]) > 400 { // one long line (HTML): the part around the change
		c := 0
		for c < len(w[i]) && c < len(g[i]) && w[i][c] == g[i][c] {
			c++
		}
		clip := func(l string) string { return l[max(0, c-80):min(len(l), c+80)] }
		return fmt.Sprintf("line %d, byte %d:\n- …%s…\n+ …%s…\n", i+1, c+1, clip(w[i]), clip(g[i]))
	}
	for j := max(0, i-3); j < i; j++ {
		fmt.Fprintf(&b, "  %4d  %s\n", j+1, w[j])
	}
	for j := i; j < min(len(w), i+5); j++ {
		fmt.Fprintf(&b, "- %4d  %s\n", j+1, w[j])
	}
	for j := i; j < min(len(g), i+5); j++ {
		fmt.Fprintf(&b, "+ %4d  %s\n", j+1, g[j])
	}
	return b.String()
}

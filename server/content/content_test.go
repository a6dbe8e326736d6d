package content

import (
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

func TestParsePage(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		wantErr string // substring; empty means the page parses
	}{
		{"ok", "---\ntitle: T\ndescription: D\n---\n\nBody\n", ""},
		{"ok with date and type", "---\ntitle: T\ndescription: D\nlastModified: 2026-01-02T03:04:05Z\ntype: article\n---\nBody\n", ""},
		{"no front matter", "# Just markdown\n", "p.md:1: missing front matter"},
		{"no title", "---\ndescription: D\n---\nBody\n", "p.md:1: front matter has no title"},
		{"blank title", "---\ntitle: '  '\ndescription: D\n---\nBody\n", "p.md:1: front matter has no title"},
		{"no description", "---\ntitle: T\n---\nBody\n", "p.md:1: front matter has no description"},
		{"malformed yaml", "---\ntitle: T\ndescription: [unclosed\n---\nBody\n", "p.md:"},
		{"bad type", "---\ntitle: T\ndescription: D\ntype: poster\n---\nBody\n", `type "poster" is not one of default, portfolio, speaking, article`},
		{"bad layout", "---\ntitle: T\ndescription: D\nlayout: wide\n---\nBody\n", `layout "wide" is not known`},
		// Every problem of a front matter names its line, and says what would be right.
		{"bad date", "---\ntitle: T\ndescription: D\nlastModified: yesterday\n---\nBody\n", `p.md:4: lastModified "yesterday" is not a date: write 2026-11-24`},
		{"impossible date", "---\ntitle: T\n\ndescription: D\nlastModified: 2026-13-45\n---\nBody\n", `p.md:5: lastModified "2026-13-45" is not a date`},
		{"unknown key", "---\ntitle: T\ndescription: D\nauthor: Iris\n---\nBody\n", `p.md:4: unknown front-matter key "author" (the keys are title, description, lastModified, type, mirror, layout, draft)`},
		{"mistyped key", "---\ntitle: T\ndescritpion: D\n---\nBody\n", `p.md:3: unknown front-matter key "descritpion": did you mean "description"?`},
		{"key in the wrong case", "---\nTitle: T\ndescription: D\n---\nBody\n", `p.md:2: unknown front-matter key "Title": did you mean "title"?`},
		{"key twice", "---\ntitle: T\ndescription: D\ntitle: U\n---\nBody\n", "p.md:4: title is given twice"},
		{"draft not a boolean", "---\ntitle: T\ndescription: D\ndraft: soon\n---\nBody\n", `p.md:4: draft "soon" is not true or false`},
		{"list for text", "---\ntitle: T\ndescription:\n  - D\n---\nBody\n", "p.md:4: description must be one line of text"},
		{"type on its line", "---\ntitle: T\ndescription: D\n\ntype: poster\n---\nBody\n", `p.md:5: type "poster"`},
		{"not a mapping", "---\n- title\n---\nBody\n", "p.md:2: front matter is not a list of key: value lines"},
		{"draft", "---\ntitle: T\ndescription: D\ndraft: true\n---\nBody\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParsePage("p.md", "p", []byte(tt.src))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("ParsePage: %v", err)
				}
				if p.Title != "T" || p.Description != "D" || !strings.Contains(string(p.Body), "Body") {
					t.Fatalf("page = %+v", p)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestParsePageLines(t *testing.T) {
	p, err := ParsePage("p.md", "p", []byte("---\ntitle: T\ndescription: D\nlastModified: 2026-01-02T03:04:05+01:00\n---\n\nFirst line\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p.BodyLine != 6 && p.BodyLine != 7 {
		t.Fatalf("BodyLine = %d, want the line after the closing ---", p.BodyLine)
	}
	src := strings.Split("---\ntitle: T\ndescription: D\nlastModified: 2026-01-02T03:04:05+01:00\n---\n\nFirst line\n", "\n")
	body := strings.Split(string(p.Body), "\n")
	if src[p.BodyLine-1] != body[0] {
		t.Fatalf("line %d of the source is %q, but the body starts with %q", p.BodyLine, src[p.BodyLine-1], body[0])
	}
	if want := time.Date(2026, 1, 2, 2, 4, 5, 0, time.UTC); !p.LastModified.Equal(want) || p.LastModified.Location() != time.UTC {
		t.Fatalf("LastModified = %v, want %v in UTC", p.LastModified, want)
	}
	if p.Type != "default" {
		t.Fatalf("Type = %q, want the default", p.Type)
	}
}

func TestMalformedFrontMatterNamesLine(t *testing.T) {
	_, err := ParsePage("pages/x.md", "x", []byte("---\ntitle: T\ndescription: D\nbroken: : :\n---\nBody\n"))
	if err == nil {
		t.Fatal("no error for malformed front matter")
	}
	if !strings.HasPrefix(err.Error(), "pages/x.md:4: malformed front matter") {
		t.Fatalf("error = %q, want it to name pages/x.md line 4", err)
	}
}

const siteYAML = `title: S
baseURL: https://example.org/
owner: {name: O}
pages: [index, about]
nav: [{title: Home, page: index}]
`

func TestLoadSite(t *testing.T) {
	tests := []struct {
		name, yaml, wantErr string
	}{
		{"ok", siteYAML, ""},
		{"no title", strings.Replace(siteYAML, "title: S\n", "", 1), "title is required"},
		{"relative base", strings.Replace(siteYAML, "https://example.org/", "/site", 1), "baseURL must be an absolute http(s) URL"},
		{"base with a query", strings.Replace(siteYAML, "https://example.org/", "https://example.org/?a=1", 1), "baseURL must be a scheme, a host and an optional path"},
		{"base with a space", strings.Replace(siteYAML, "https://example.org/", `"https://example.org/a b"`, 1), "baseURL must be a scheme, a host and an optional path"},
		{"no index", strings.Replace(siteYAML, "[index, about]", "[about]", 1), `pages must include "index"`},
		{"duplicate page", strings.Replace(siteYAML, "[index, about]", "[index, about, about]", 1), `"about" is listed twice`},
		{"bad page id", strings.Replace(siteYAML, "[index, about]", "[index, About_Me]", 1), `"About_Me" is not a page id`},
		{"nav to unknown page", strings.Replace(siteYAML, "page: index", "page: blog", 1), `nav: "blog" is not one of the pages`},
		{"unknown key", siteYAML + "colour: blue\n", "field colour not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := LoadSite(fstest.MapFS{"site.yaml": {Data: []byte(tt.yaml)}})
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if s.BaseURL != "https://example.org" || s.Language != "en" || s.URL("/a/") != "https://example.org/a/" {
					t.Fatalf("site = %+v", s)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.HasPrefix(err.Error(), "site.yaml") {
				t.Fatalf("error = %v, want site.yaml: …%s…", err, tt.wantErr)
			}
		})
	}
}

func TestPageFiles(t *testing.T) {
	s, err := LoadSite(fstest.MapFS{"site.yaml": {Data: []byte(siteYAML)}})
	if err != nil {
		t.Fatal(err)
	}
	page := &fstest.MapFile{Data: []byte("---\ntitle: T\ndescription: D\n---\n")}
	t.Run("ok, in site order", func(t *testing.T) {
		files, err := PageFiles(fstest.MapFS{"pages/about.md": page, "pages/index.md": page, "pages/notes.txt": page}, s)
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != 2 || files[0].ID != "index" || files[1].File != "pages/about.md" {
			t.Fatalf("files = %+v", files)
		}
	})
	t.Run("page outside the list", func(t *testing.T) {
		_, err := PageFiles(fstest.MapFS{"pages/about.md": page, "pages/index.md": page, "pages/blog.md": page}, s)
		if err == nil || !strings.Contains(err.Error(), `pages/blog.md: page id "blog" is not one of the site's pages (site.yaml pages: index, about)`) {
			t.Fatalf("error = %v", err)
		}
	})
	t.Run("listed page missing", func(t *testing.T) {
		_, err := PageFiles(fstest.MapFS{"pages/index.md": page}, s)
		if err == nil || !strings.Contains(err.Error(), "pages/about.md: site.yaml lists this page but the file is missing") {
			t.Fatalf("error = %v", err)
		}
	})
}

func TestLoadGenesis(t *testing.T) {
	const a, b = "01K4282CM0E4A31XGP9T9R0FCK", "01K428W0Y09MQMPSMCZH4EC1CX"
	note := func(id, reply string) string {
		return "- id: " + id + "\n  handle: H1x\n  model: m1\n  body: hi\n  createdAt: 2025-09-01T09:00:00Z\n  inReplyTo: '" + reply + "'\n"
	}
	tests := []struct{ name, yaml, wantErr string }{
		{"ok", note(a, "") + note(b, a), ""},
		{"bad id", note("nope", ""), "id must be a ULID"},
		{"out of order", note(b, "") + note(a, ""), "oldest first"},
		{"reply to later note", note(a, b) + note(b, ""), "inReplyTo names no earlier note"},
		{"duplicate", note(a, "") + note(a, ""), "id is used twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			notes, err := LoadGenesis(fstest.MapFS{GenesisFile: {Data: []byte(tt.yaml)}})
			if tt.wantErr == "" {
				if err != nil || len(notes) != 2 || notes[1].InReplyTo != a {
					t.Fatalf("notes = %+v, err = %v", notes, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// The real site must declare exactly the page ids of SPEC.md, with a file for each.
func TestRealSite(t *testing.T) {
	fsys := osDirFS(t, "../../site")
	s, err := LoadSite(fsys)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"index", "about", "founders", "projects", "essays", "podcasts", "family", "experiments", "founder-testimonials", "developers", "collusion"}
	if strings.Join(s.Pages, ",") != strings.Join(want, ",") {
		t.Fatalf("pages = %v, want %v", s.Pages, want)
	}
	pages, err := LoadPages(fsys, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		if words := len(strings.Fields(string(p.Body))); words < 300 {
			t.Errorf("%s has %d words, want at least 300", p.Source, words)
		}
	}
	notes, err := LoadGenesis(fsys)
	if err != nil || len(notes) < 3 || len(notes) > 6 {
		t.Fatalf("genesis: %d notes, err %v; want 3 to 6", len(notes), err)
	}
}

// A genesis id the server would answer ID_INVALID (a ULID's first character is at most 7) does not build.
func TestGenesisIDsAreTheBoards(t *testing.T) {
	yaml := "- id: 81K4282CM0E4A31XGP9T9R0FCK\n  handle: First\n  model: m\n  createdAt: 2026-01-01T00:00:00Z\n  body: hello\n"
	_, err := LoadGenesis(fstest.MapFS{GenesisFile: {Data: []byte(yaml)}})
	if err == nil || !strings.Contains(err.Error(), "ULID") {
		t.Fatalf("an id starting with 8: %v", err)
	}
}

// Published takes drafts out of the site: its pages, its navigation and its writing page; the server and the build
// both start from it, so a draft is served and listed nowhere.
func TestPublishedLeavesOutDrafts(t *testing.T) {
	page := func(extra string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte("---\ntitle: T\ndescription: D\n" + extra + "---\nBody\n")}
	}
	fsys := fstest.MapFS{
		"site.yaml": {Data: []byte("title: S\nbaseURL: https://s.example\nowner: {name: O}\npages: [index, now, notes]\n" +
			"writingPage: notes\nnav:\n  - {title: Home, page: index}\n  - {title: Now, page: now}\n  - {title: Notes, page: notes}\n")},
		"pages/index.md": page(""),
		"pages/now.md":   page("draft: false\n"),
		"pages/notes.md": page("draft: true\n"),
	}
	s, err := LoadSite(fsys)
	if err != nil {
		t.Fatal(err)
	}
	files, drafts, err := Published(fsys, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || files[0].ID != "index" || files[1].ID != "now" || strings.Join(drafts, ",") != "notes" {
		t.Fatalf("files %v, drafts %v", files, drafts)
	}
	if strings.Join(s.Pages, ",") != "index,now" || len(s.Nav) != 2 || s.WritingPage != "" || s.HasPage("notes") {
		t.Errorf("the site still has the draft: pages %v, nav %v, writingPage %q", s.Pages, s.Nav, s.WritingPage)
	}
	pages, err := LoadPages(fsys, s) // a second pass over the same site finds the same pages
	if err != nil || len(pages) != 2 {
		t.Fatalf("LoadPages after Published: %d pages, %v", len(pages), err)
	}
}

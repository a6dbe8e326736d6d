package generate

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A build for another address, a deploy preview or a fork, sends no reader to site.yaml's: not in a page, a
// mirror, llms.txt, the manifest, openapi.json or the board's instructions, even where the source files write it.
func TestBuildForAnotherBase(t *testing.T) {
	const production, preview = "https://iriscalloway.example", "https://deploy-preview-7--iris.netlify.app"
	out := filepath.Join(t.TempDir(), "public")
	report, err := Build(context.Background(), Options{SiteDir: "../../site", OutDir: out, BaseURL: preview + "/"})
	if err != nil {
		t.Fatal(err)
	}
	if report.BaseURL != preview {
		t.Errorf("report.BaseURL = %q, want %q", report.BaseURL, preview)
	}
	err = filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if i := strings.Index(string(data), production); i >= 0 {
			rel, _ := filepath.Rel(out, p)
			t.Errorf("%s names %s: …%s…", rel, production, data[max(0, i-60):min(len(data), i+80)])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	read := func(p string) string {
		t.Helper()
		return string(mustRead(t, filepath.Join(out, p)))
	}
	var openapi struct {
		Servers []struct{ URL string } `json:"servers"`
	}
	if err := json.Unmarshal([]byte(read("openapi.json")), &openapi); err != nil {
		t.Fatal(err)
	}
	if len(openapi.Servers) == 0 || openapi.Servers[0].URL != preview {
		t.Errorf("openapi.json servers = %+v, want %s first", openapi.Servers, preview)
	}
	var manifest mcpManifest
	if err := json.Unmarshal([]byte(read(".well-known/mcp.json")), &manifest); err != nil {
		t.Fatal(err)
	}
	if manifest.Remotes[0].URL != preview+"/api/mcp" || manifest.WebsiteURL != preview+"/" {
		t.Errorf("mcp.json remotes = %+v, websiteUrl = %s", manifest.Remotes, manifest.WebsiteURL)
	}
	for _, tt := range []struct{ file, want string }{
		{"collusion.md", "curl -s " + preview + "/api/collusion/challenge\n"},
		{"collusion.md", "url: " + preview + "/collusion/\n"},
		{"collusion/SKILL.md", "Full instructions: " + preview + "/collusion.md."},
		{"llms.txt", "](" + preview + "/collusion/SKILL.md)"},
		{"llms-full.txt", "<!-- " + preview + "/collusion.md -->"},
		{"md/index.md", "url: " + preview + "/api/md\n"},
		{"sitemap.xml", "<loc>" + preview + "/about/</loc>"},
		{"robots.txt", "Sitemap: " + preview + "/sitemap.xml"},
		{"about/index.html", `<link rel="canonical" href="` + preview + `/about/">`},
		{"about/index.html", `<meta property="og:url" content="` + preview + `/about/">`},
		{"developers/index.html", "curl -s " + preview + "/api/mcp"},
		{"collusion/index.html", "<code>" + preview + "/api/mcp</code>"},
	} {
		if got := read(tt.file); !strings.Contains(got, tt.want) {
			t.Errorf("%s lacks %q", tt.file, tt.want)
		}
	}
	// Addresses that only begin like the site's are other sites.
	if llms := read("llms.txt"); !strings.Contains(llms, "(https://notes.iriscalloway.example)") {
		t.Errorf("llms.txt lost the owner's other sites:\n%s", llms)
	}
}

func TestSetServerURL(t *testing.T) {
	const url = "https://preview.example"
	tests := []struct {
		name, doc, want, wantErr string
	}{
		{"another server", `{"openapi": "3.1.0", "servers": [ {"description": "The site", "url" :  "https://api.example"}, {"url": "https://b.example"}], "paths": {}}`,
			`{"openapi": "3.1.0", "servers": [ {"description": "The site", "url" :  "https://preview.example"}, {"url": "https://b.example"}], "paths": {}}`, ""},
		{"after nested values", `{"info": {"servers": [{"url": "x"}], "url": "y"}, "servers": [{"url": "https://a.example"}]}`,
			`{"info": {"servers": [{"url": "x"}], "url": "y"}, "servers": [{"url": "https://preview.example"}]}`, ""},
		{"already set", `{"servers":[{"url":"https://preview.example"}]}`, `{"servers":[{"url":"https://preview.example"}]}`, ""},
		{"no servers", `{"openapi": "3.1.0", "paths": {}}`, `{"openapi": "3.1.0", "paths": {}}`, ""},
		{"empty servers", `{"servers": []}`, "", "servers must be a list of at least one server"},
		{"server without url", `{"servers": [{"description": "d"}]}`, "", "servers[0] has no url"},
		{"url not a string", `{"servers": [{"url": 7}]}`, "", "servers[0].url must be a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := setServerURL([]byte(tt.doc), url)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Errorf("setServerURL = %s, %v\nwant %s", got, err, tt.want)
			}
		})
	}
}

package host

import (
	"context"
	"maps"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"twofold/build/generate"
	"twofold/server/content"
	"twofold/server/host/rules"

	"github.com/valyala/fasthttp"
)

// A page is one file and its line in site.yaml: built, it has its rules in _redirects, and local mode answers every
// representative path as Netlify would from the generated _redirects and _headers and netlify.toml's proxies.
func TestNewPageOnNetlifyAndLocally(t *testing.T) {
	siteDir := filepath.Join(t.TempDir(), "site")
	if err := os.CopyFS(siteDir, os.DirFS("../../site")); err != nil {
		t.Fatal(err)
	}
	addPage(t, siteDir, "now", "---\ntitle: Now\ndescription: What I am doing now.\n---\n\nWriting a test.\n")
	public := filepath.Join(t.TempDir(), "public")
	if _, err := generate.Build(context.Background(), generate.Options{SiteDir: siteDir, OutDir: public}); err != nil {
		t.Fatal(err)
	}
	s, err := content.LoadSite(os.DirFS(siteDir))
	if err != nil {
		t.Fatal(err)
	}
	nl := netlifyFromFiles(t, public)
	if want := (netlifyRedirect{From: "/api/md/now", To: "/now.md", Status: 200, Force: true}); !nl.has(want) {
		t.Fatalf("_redirects lacks %+v", want)
	}

	api := &recordingAPI{}
	local := New(public, s.Pages, api)
	paths := []string{"/api/md", "/api/md/", "/api/md/missing", "/api/md/now/extra", "/api/sitemap.xml", "/now/", "/now.md",
		"/llms.txt", "/sitemap.xml", "/openapi.json", "/.well-known/mcp.json", "/static/style.css", "/missing/",
		"/api/mcp", "/api/collusion/notes", "/api/logo/example.com", "/api/og", "/api/writing", "/api/nothing"}
	for _, id := range s.Pages {
		paths = append(paths, "/api/md/"+id, content.PagePath(id), "/"+id+".md")
	}
	for _, p := range paths {
		t.Run(p, func(t *testing.T) {
			want := nl.answer(t, p)
			api.served = ""
			var ctx fasthttp.RequestCtx
			ctx.Request.Header.SetMethod(fasthttp.MethodGet)
			ctx.Request.SetRequestURI(p)
			local.Handle(&ctx)
			if want.proxied {
				if api.served != p {
					t.Errorf("Netlify proxies %s to the API server; local mode did not hand it to the API (served %q)", p, api.served)
				}
				return
			}
			if api.served != "" {
				t.Fatalf("local mode handed %s to the API; Netlify serves %s", p, want.file)
			}
			body, err := os.ReadFile(filepath.Join(public, filepath.FromSlash(want.file)))
			if err != nil {
				t.Fatal(err)
			}
			if ctx.Response.StatusCode() != want.status || string(ctx.Response.Body()) != string(body) {
				t.Errorf("local mode answers %d with %d bytes; Netlify %d with %s (%d bytes)", ctx.Response.StatusCode(), len(ctx.Response.Body()), want.status, want.file, len(body))
			}
			for name, value := range want.headers {
				if got := string(ctx.Response.Header.Peek(name)); got != value {
					t.Errorf("%s: local mode says %q, _headers %q", name, got, value)
				}
			}
		})
	}
}

// addPage adds a page as an editor does: its file, and its id in site.yaml's pages.
func addPage(t *testing.T, siteDir, id, source string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(siteDir, "pages", id+".md"), []byte(source), 0o644); err != nil {
		t.Fatal(err)
	}
	yamlFile := filepath.Join(siteDir, "site.yaml")
	yaml, err := os.ReadFile(yamlFile)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(yaml), "\npages:\n", "\npages:\n  - "+id+"\n", 1)
	if edited == string(yaml) {
		t.Fatal("site.yaml has no block list of pages to add to")
	}
	if err := os.WriteFile(yamlFile, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
}

// netlify is the static host as the generated files and netlify.toml configure it, read the way Netlify's
// documentation describes: _redirects' rules first, then netlify.toml's, the first match winning; a rule's "*" is
// the rest of the path; header rules' "*" any run of characters; a rewrite's headers those of the address asked for.
type netlify struct {
	public    string
	redirects []netlifyRedirect
	proxied   []string // netlify.toml's from patterns
	headers   []rules.Header
}

func netlifyFromFiles(t *testing.T, public string) *netlify {
	t.Helper()
	read := func(name string) []byte {
		data, err := os.ReadFile(filepath.Join(public, name))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	c, _ := readNetlify(t)
	n := &netlify{public: public, redirects: parseRedirects(t, read("_redirects")), headers: parseHeaders(t, read("_headers"))}
	for _, r := range c.Redirects {
		if !strings.HasPrefix(r.To, "https://") || r.Signed == "" {
			t.Fatalf("netlify.toml rule %s -> %s is not a signed proxy", r.From, r.To)
		}
		n.proxied = append(n.proxied, r.From)
	}
	return n
}

func (n *netlify) has(r netlifyRedirect) bool {
	for _, have := range n.redirects {
		if have == r {
			return true
		}
		if have.From == "/api/md/*" {
			return false // the markdown 404 shadows every rule after it
		}
	}
	return false
}

type netlifyAnswer struct {
	proxied bool
	status  int
	file    string
	headers map[string]string
}

func (n *netlify) answer(t *testing.T, p string) netlifyAnswer {
	t.Helper()
	a := netlifyAnswer{status: 200, headers: map[string]string{}}
	matched := false
	for _, r := range n.redirects {
		if splat, ok := netlifyMatch(r.From, p); ok {
			a.status, a.file, matched = r.Status, strings.ReplaceAll(r.To, ":splat", splat), true
			break
		}
	}
	if !matched {
		for _, from := range n.proxied {
			if _, ok := netlifyMatch(from, p); ok {
				return netlifyAnswer{proxied: true}
			}
		}
		a.file = p
		if strings.HasSuffix(p, "/") {
			a.file = path.Join(p, "index.html")
		}
		if _, err := os.Stat(filepath.Join(n.public, filepath.FromSlash(a.file))); err != nil {
			a.status, a.file = 404, "/404.html"
		}
	}
	for _, h := range n.headers {
		if h.Matches(p) {
			maps.Copy(a.headers, h.Values)
		}
	}
	return a
}

// netlifyMatch matches a redirect's from: literal, with a trailing "/*" that matches the rest of the path (or
// nothing); a trailing slash of the path is ignored.
func netlifyMatch(from, p string) (splat string, ok bool) {
	if len(p) > 1 {
		p = strings.TrimSuffix(p, "/")
	}
	if prefix, isSplat := strings.CutSuffix(from, "/*"); isSplat {
		if p == prefix {
			return "", true
		}
		rest, ok := strings.CutPrefix(p, prefix+"/")
		return rest, ok
	}
	return "", p == from
}

// recordingAPI stands for the API server: it records the path it was handed.
type recordingAPI struct{ served string }

func (a *recordingAPI) ServeAPI(ctx *fasthttp.RequestCtx) { a.served = string(ctx.Path()) }
func (a *recordingAPI) WriteError(ctx *fasthttp.RequestCtx, err error) {
	ctx.Error(err.Error(), fasthttp.StatusInternalServerError)
}

package generate

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"twofold/server/content"
	"twofold/server/host/rules"
	"twofold/server/mcp"
	"twofold/server/paths"
	"twofold/templates"

	"github.com/a-h/templ"
)

// The files of the built site that are not pages; the server's route table and netlify.toml name them too.
const (
	pathLLMs        = paths.LLMs
	pathLLMsFull    = paths.LLMsFull
	pathSitemap     = paths.Sitemap
	pathRobots      = paths.Robots
	pathOpenAPI     = paths.OpenAPI
	pathManifest    = paths.Manifest
	pathSkill       = paths.Skill
	pathMDIndex     = paths.MDIndexFile
	pathMD404       = paths.MD404File
	pathHTML404     = paths.HTML404
	pathMCP         = paths.MCP
	pathNotes       = paths.Notes
	fileOpenAPI     = "openapi.json"
	fileSkill       = "collusion/SKILL.md"
	dateText        = "2 January 2006"
	maxOGTitle      = 120
	maxOGSubtitle   = 200
	staticDir       = "static"
	stylesheet      = "style.css"
	favicon         = "favicon.svg"
	mcpServerSchema = "https://static.modelcontextprotocol.io/schemas/mcp-server-card/v1.json"
)

// fixedPaths are the outputs every build writes besides pages, mirrors and static files.
var fixedPaths = []string{pathLLMs, pathLLMsFull, pathSitemap, pathRobots, pathOpenAPI, pathManifest, pathSkill, pathMDIndex, pathMD404, pathHTML404}

// copyStatic copies site/static to /static and returns the stylesheet's address, versioned by its content so
// that a long cache never serves an old one.
func (b *builder) copyStatic() (string, error) {
	version := ""
	err := fs.WalkDir(b.fsys, staticDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(b.fsys, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		if p == staticDir+"/"+stylesheet {
			version = hex.EncodeToString(sum[:6])
		}
		if strings.HasSuffix(p, ".js") {
			b.scripts[path.Base(p)] = "/" + p + "?v=" + hex.EncodeToString(sum[:6])
		}
		return b.out.write("/"+p, data)
	})
	if err != nil {
		return "", &content.Error{File: staticDir, Msg: err.Error()}
	}
	if version == "" {
		return "", &content.Error{File: staticDir + "/" + stylesheet, Msg: "the site's stylesheet is missing"}
	}
	b.icon = "/" + staticDir + "/" + favicon
	if _, err := fs.Stat(b.fsys, staticDir+"/"+favicon); err != nil {
		return "", &content.Error{File: staticDir + "/" + favicon, Msg: "the site's icon is missing"}
	}
	return "/" + staticDir + "/" + stylesheet + "?v=" + version, nil
}

// staticPaths are the addresses of every file the build writes that is not a page or a mirror.
func (b *builder) staticPaths() []string {
	paths := append([]string(nil), fixedPaths...)
	fs.WalkDir(b.fsys, staticDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			paths = append(paths, "/"+p)
		}
		return nil
	})
	return paths
}

// shell is the frame of page p.
// feeds are the board's feeds, offered by the board's page.
func (b *builder) feeds(p *content.Page) []templates.Feed {
	if p.Layout != "board" {
		return nil
	}
	return []templates.Feed{
		{Href: b.site.URL(paths.FeedAtom), Type: "application/atom+xml", Title: "The board (Atom)"},
		{Href: b.site.URL(paths.FeedJSON), Type: "application/feed+json", Title: "The board (JSON Feed)"},
	}
}

func (b *builder) shell(p *content.Page) templates.Shell {
	s := b.site
	nav := make([]templates.NavLink, len(s.Nav))
	for i, n := range s.Nav {
		nav[i] = templates.NavLink{Title: n.Title, Href: content.PagePath(n.Page), Current: n.Page == p.ID}
	}
	ogType := "website"
	if p.Type == "article" {
		ogType = "article"
	}
	mirror := ""
	if p.ID != "" {
		mirror = p.MirrorPath()
	}
	return templates.Shell{
		Lang:        s.Language,
		SiteTitle:   s.Title,
		OwnerName:   s.Owner.Name,
		Title:       p.Title,
		Description: p.Description,
		Canonical:   s.URL(p.Path()),
		Mirror:      mirror,
		OGImage:     s.URL(ogImagePath(p.Title, p.Description, p.Type)),
		OGType:      ogType,
		Stylesheet:  b.style,
		Scripts:     b.pageScripts(p),
		Icon:        b.icon,
		Nav:         nav,
		Footer:      b.footerLinks,
		Year:        p.LastModified.Year(),
		Feeds:       b.feeds(p),
	}
}

// Scripts of the site's static folder and the pages that load them: the live board on the board's page, the
// owner's recent writing on the home page. A site without them gets pages without script.
const (
	boardScript = "board.js"
	homeScript  = "home.js"
	homePage    = "index"
)

// pageScripts are the versioned addresses of the scripts page p loads.
func (b *builder) pageScripts(p *content.Page) []string {
	switch {
	case p.Layout == "board" && b.scripts[boardScript] != "":
		return []string{b.scripts[boardScript]}
	case p.ID == homePage && b.scripts[homeScript] != "":
		return []string{b.scripts[homeScript]}
	}
	return nil
}

// boardPage is the id of the page people read the board on; the footer links it when the site has it.
const boardPage = "collusion"

// footer lists the site's doors for machines and agents.
func (b *builder) footer() []templates.NavLink {
	links := []templates.NavLink{
		{Title: "llms.txt", Href: pathLLMs},
		{Title: "Markdown index", Href: "/api/md"},
		{Title: "openapi.json", Href: pathOpenAPI},
		{Title: "MCP manifest", Href: pathManifest},
	}
	if b.site.HasPage(boardPage) {
		links = append(links, templates.NavLink{Title: "Collusion wiki", Href: content.PagePath(boardPage)})
	}
	return append(links, templates.NavLink{Title: "Sitemap", Href: pathSitemap})
}

// ogImagePath is the address of the Open Graph image of a page, within the limits /api/og accepts.
func ogImagePath(title, subtitle, typ string) string {
	q := url.Values{}
	q.Set("title", truncate(title, maxOGTitle))
	q.Set("subtitle", truncate(subtitle, maxOGSubtitle))
	q.Set("type", typ)
	return "/api/og?" + q.Encode()
}

// truncate cuts s to at most n code points, ending with an ellipsis when it cuts.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n-1]
	return strings.TrimRight(string(r), " ") + "…"
}

func (b *builder) renderHTML(w io.Writer, p *content.Page, body templ.Component) error {
	pb := templates.PageBody{
		Title:       p.Title,
		Updated:     p.LastModified.Format(time.RFC3339),
		UpdatedText: p.LastModified.Format(dateText),
		Mirror:      p.MirrorPath(),
		Writing:     p.ID == homePage && b.scripts[homeScript] != "",
		Draft:       p.Draft,
	}
	if p.Layout == "board" {
		notes, err := b.genesisNotes()
		if err != nil {
			return err
		}
		links := templates.BoardLinks{
			Instructions: p.MirrorPath(), Skill: pathSkill, MCP: b.site.URL(pathMCP), OpenAPI: pathOpenAPI, Notes: pathNotes,
		}
		return templates.Board(b.shell(p), pb, body, notes, links).Render(noContext, w)
	}
	return templates.Page(b.shell(p), pb, body).Render(noContext, w)
}

// genesisNotes are the notes shipped with the site, newest first, as the board page shows them.
func (b *builder) genesisNotes() ([]templates.Note, error) {
	b.genesisOnce.Do(func() {
		var notes []content.GenesisNote
		notes, b.genesisErr = content.LoadGenesis(b.fsys)
		for i := len(notes) - 1; i >= 0; i-- {
			n := notes[i]
			b.genesis = append(b.genesis, templates.Note{
				ID: n.ID, Handle: n.Handle, Model: n.Model, Body: n.Body, Via: "genesis", InReplyTo: n.InReplyTo,
				Created: n.CreatedAt.Format(time.RFC3339), CreatedText: n.CreatedAt.Format(dateText), Position: i + 1,
			})
		}
	})
	return b.genesis, b.genesisErr
}

// fullText is llms-full.txt as it is written: a header, then every mirror in site order, each under its address.
type fullText struct {
	b    *builder
	f    *os.File
	w    *bufio.Writer
	next int // index of the next page to add
	n    int64
}

func (b *builder) newFullText() (*fullText, error) {
	f, err := b.out.create(pathLLMsFull)
	if err != nil {
		return &fullText{b: b}, err
	}
	t := &fullText{b: b, f: f, w: bufio.NewWriterSize(f, 256<<10)}
	n, _ := b.fullTextHeader(t.w)
	t.n = int64(n)
	return t, nil
}

// fullTextHeader writes the top of llms-full.txt.
func (b *builder) fullTextHeader(w io.Writer) (int, error) {
	n, _ := fmt.Fprintf(w, "# %s: every page in full\n\n> %s\n\n", b.site.Title, oneLine(b.site.Owner.Tagline))
	m, err := fmt.Fprintf(w, "This file holds the markdown mirror of each page of %s, in the order of %s. Each mirror starts with its address.\n", b.site.BaseURL, b.site.URL(pathLLMs))
	return n + m, err
}

// fullTextEntry writes one page's mirror into llms-full.txt, after its address.
func (b *builder) fullTextEntry(w io.Writer, id string, mirror []byte) (int, error) {
	n, err := fmt.Fprintf(w, "\n\n<!-- %s -->\n\n", b.site.URL("/"+id+".md"))
	if err != nil {
		return n, err
	}
	m, err := w.Write(mirror)
	return n + m, err
}

func (t *fullText) add(r *rendered) error {
	n, err := t.b.fullTextEntry(t.w, r.meta.id, r.mirror.Bytes())
	t.n += int64(n)
	return err
}

func (t *fullText) close() error {
	if t.f == nil {
		return nil
	}
	err := t.w.Flush()
	if cerr := t.f.Close(); err == nil {
		err = cerr
	}
	t.b.out.wrote(t.n)
	return err
}

// writeLLMs writes llms.txt as llmstxt.org describes it: a title, a summary, and sections of annotated links.
func (b *builder) writeLLMs(pages []pageMeta) error {
	s := b.site
	var w bytes.Buffer
	fmt.Fprintf(&w, "# %s\n\n> %s\n\n", s.Title, oneLine(s.Owner.Tagline))
	fmt.Fprintf(&w, "%s %s Every page is available as markdown with YAML front matter; the API is described by OpenAPI 3.1 and offered as an MCP server.\n\n", oneLine(s.Owner.Bio), locationSentence(s.Owner.Location))
	w.WriteString("## Pages\n\n")
	for _, m := range pages {
		fmt.Fprintf(&w, "- [%s](%s): %s\n", m.title, s.URL("/"+m.id+".md"), oneLine(m.description))
	}
	w.WriteString("\n## API and MCP\n\n")
	fmt.Fprintf(&w, "- [OpenAPI description](%s): every endpoint, schema and error code of the public API (OpenAPI 3.1.0)\n", s.URL(pathOpenAPI))
	fmt.Fprintf(&w, "- [MCP server](%s): stateless Streamable HTTP, POST JSON-RPC; seven tools (profile, pages, writing, and the collusion wiki)\n", s.URL(pathMCP))
	fmt.Fprintf(&w, "- [MCP discovery manifest](%s): server card with the tool list and supported protocol versions\n", s.URL(pathManifest))
	fmt.Fprintf(&w, "- [Markdown index](%s): every page with its title, description and mirror address\n", s.URL("/api/md"))
	w.WriteString("\n## Collusion wiki\n\n")
	fmt.Fprintf(&w, "- [Instructions for agents](%s): how to read the board, solve a challenge and post a note over REST, MCP or WebMCP\n", s.URL(paths.BoardDocs))
	fmt.Fprintf(&w, "- [SKILL.md](%s): the same as an agent skill, with every limit and error code\n", s.URL(pathSkill))
	fmt.Fprintf(&w, "- [Notes](%s): the board as JSON, newest first, with a fresh challenge\n", s.URL(pathNotes))
	fmt.Fprintf(&w, "- [Feed](%s): the newest notes as Atom (also [JSON Feed](%s)); ?thread=ID for one note and its replies\n", s.URL(paths.FeedAtom), s.URL(paths.FeedJSON))
	w.WriteString("\n## Optional\n\n")
	fmt.Fprintf(&w, "- [Full text](%s): every page's mirror in one file\n", s.URL(pathLLMsFull))
	fmt.Fprintf(&w, "- [Recent writing](%s): the newest posts of the owner's blog as JSON\n", s.URL(paths.Writing))
	fmt.Fprintf(&w, "- [Sitemap](%s): every page with its last change\n", s.URL(pathSitemap))
	for _, l := range s.Owner.Links {
		fmt.Fprintf(&w, "- [%s](%s): elsewhere on the web\n", l.Name, l.URL)
	}
	return b.out.write(pathLLMs, w.Bytes())
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func locationSentence(loc string) string {
	if loc == "" {
		return ""
	}
	return "Based in " + loc + "."
}

type sitemapURL struct {
	Loc     string `xml:"loc"`
	LastMod string `xml:"lastmod"`
}

func (b *builder) writeSitemap(pages []pageMeta) error {
	var w bytes.Buffer
	w.WriteString(xml.Header)
	w.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	enc := xml.NewEncoder(&w)
	for _, m := range pages {
		w.WriteString("  ")
		if err := enc.EncodeElement(sitemapURL{Loc: b.site.URL(content.PagePath(m.id)), LastMod: m.lastModified.Format(time.RFC3339)}, xml.StartElement{Name: xml.Name{Local: "url"}}); err != nil {
			return err
		}
		enc.Flush()
		w.WriteString("\n")
	}
	w.WriteString("</urlset>\n")
	if err := b.out.write(pathSitemap, w.Bytes()); err != nil {
		return err
	}
	robots := fmt.Sprintf("# Everything here is public, for people and for agents. Agents: see %s\nUser-agent: *\nAllow: /\n\nSitemap: %s\n", b.site.URL(pathLLMs), b.site.URL(pathSitemap))
	return b.out.write(pathRobots, []byte(robots))
}

// writeMarkdownIndex writes /api/md and the markdown answer for an unknown page.
func (b *builder) writeMarkdownIndex(pages []pageMeta) error {
	s := b.site
	var latest time.Time
	for _, m := range pages {
		if m.lastModified.After(latest) {
			latest = m.lastModified
		}
	}
	var list bytes.Buffer
	for _, m := range pages {
		fmt.Fprintf(&list, "- [%s](%s) (`%s`): %s\n", m.title, s.URL("/"+m.id+".md"), m.id, oneLine(m.description))
	}
	var w bytes.Buffer
	content.WriteFrontMatter(&w, "Markdown mirrors of "+s.Title, "Every page of "+s.Title+" as markdown with YAML front matter.", s.URL("/api/md"), latest)
	fmt.Fprintf(&w, "# Markdown mirrors\n\nEvery page of this site is available as markdown at `%s/api/md/{page}` and at `%s/{page}.md`. Each starts with YAML front matter: `title`, `description`, `url` and `lastModified`.\n\n", s.BaseURL, s.BaseURL)
	w.Write(list.Bytes())
	fmt.Fprintf(&w, "\nAll pages in one file: %s\n", s.URL(pathLLMsFull))
	if err := b.out.write(pathMDIndex, w.Bytes()); err != nil {
		return err
	}
	w.Reset()
	fmt.Fprintf(&w, "# Page not found\n\nThere is no page by that name. The pages of %s are:\n\n", s.Title)
	w.Write(list.Bytes())
	fmt.Fprintf(&w, "\nAsk for one of them at `%s/api/md/{page}`, or read the index at %s.\n", s.BaseURL, s.URL("/api/md"))
	return b.out.write(pathMD404, w.Bytes())
}

func (b *builder) writeNotFound(pages []pageMeta) error {
	links := make([]templates.NavLink, len(pages))
	var latest time.Time
	for i, m := range pages {
		links[i] = templates.NavLink{Title: m.title, Href: content.PagePath(m.id)}
		if m.lastModified.After(latest) {
			latest = m.lastModified
		}
	}
	p := &content.Page{Title: "Page not found", Description: "There is nothing at this address.", Type: "default", LastModified: latest}
	shell := b.shell(p)
	shell.Canonical = b.site.URL(pathHTML404)
	var w bytes.Buffer
	if err := templates.NotFound(shell, links).Render(noContext, &w); err != nil {
		return err
	}
	return b.out.write(pathHTML404, w.Bytes())
}

// writeOpenAPI copies the committed description, moved to the build's address (see readSource), after checking
// that it is JSON. Its server is set apart from that: whatever address servers[0].url holds, clients of this
// build must call this build's API.
func (b *builder) writeOpenAPI([]pageMeta) error {
	data, err := b.readSource(fileOpenAPI)
	if err != nil {
		return &content.Error{File: fileOpenAPI, Msg: "cannot read: " + err.Error()}
	}
	if !json.Valid(data) {
		return &content.Error{File: fileOpenAPI, Msg: "is not valid JSON"}
	}
	if data, err = setServerURL(data, b.site.BaseURL); err != nil {
		return &content.Error{File: fileOpenAPI, Msg: err.Error()}
	}
	return b.out.write(pathOpenAPI, data)
}

// setServerURL returns the OpenAPI description doc with servers[0].url set to base. It finds that value with a
// JSON decoder and replaces its bytes alone, so the file keeps its order and layout and a build for site.yaml's
// address publishes it byte for byte. A description without servers is left as it is: OpenAPI then takes the
// address it was fetched from, which is right for every build.
func setServerURL(doc []byte, base string) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("is not a JSON object")
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, err
		}
		if key != "servers" {
			if err := dec.Decode(new(json.RawMessage)); err != nil {
				return nil, err
			}
			continue
		}
		if tok, err := dec.Token(); err != nil || tok != json.Delim('[') || !dec.More() {
			return nil, fmt.Errorf("servers must be a list of at least one server")
		}
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			return nil, fmt.Errorf("servers[0] must be an object")
		}
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return nil, err
			}
			if key != "url" {
				if err := dec.Decode(new(json.RawMessage)); err != nil {
					return nil, err
				}
				continue
			}
			// The value follows the key after a colon and spaces; InputOffset brackets them and the value.
			from := dec.InputOffset()
			var old string
			if err := dec.Decode(&old); err != nil {
				return nil, fmt.Errorf("servers[0].url must be a string")
			}
			if old == base {
				return doc, nil
			}
			to := dec.InputOffset()
			from += int64(bytes.IndexByte(doc[from:to], '"'))
			value, _ := json.Marshal(base)
			return slices.Concat(doc[:from], value, doc[to:]), nil
		}
		return nil, fmt.Errorf("servers[0] has no url")
	}
	return doc, nil
}

// mcpManifest is the MCP server card served at /.well-known/mcp.json.
type mcpManifest struct {
	Schema      string      `json:"$schema"`
	Name        string      `json:"name"`
	Version     string      `json:"version"`
	Title       string      `json:"title"`
	Description string      `json:"description"`
	WebsiteURL  string      `json:"websiteUrl"`
	Remotes     []mcpRemote `json:"remotes"`
	Tools       []mcp.Tool  `json:"tools"`
}

type mcpRemote struct {
	Type                      string   `json:"type"`
	URL                       string   `json:"url"`
	SupportedProtocolVersions []string `json:"supportedProtocolVersions"`
}

func (b *builder) writeMCPManifest([]pageMeta) error {
	s := b.site
	version, err := content.APIVersion(b.fsys)
	if err != nil {
		return err
	}
	m := mcpManifest{
		Schema:      mcpServerSchema,
		Name:        mcp.ServerName(s.BaseURL),
		Version:     version,
		Title:       s.Title,
		Description: fmt.Sprintf("The site of %s for agents: profile, pages as markdown, recent writing, and the collusion wiki, an agents-only message board.", s.Owner.Name),
		WebsiteURL:  s.BaseURL + "/",
		Remotes:     []mcpRemote{{Type: "streamable-http", URL: s.URL(pathMCP), SupportedProtocolVersions: mcp.ProtocolVersions}},
		Tools:       mcp.Tools(s.Pages),
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return b.out.write(pathManifest, append(data, '\n'))
}

func (b *builder) writeSkill([]pageMeta) error {
	data, err := b.readSource(fileSkill)
	if err != nil {
		return &content.Error{File: fileSkill, Msg: "cannot read: " + err.Error()}
	}
	if !bytes.HasPrefix(data, []byte("---")) {
		return &content.Error{File: fileSkill, Line: 1, Msg: "a skill starts with front matter holding name and description"}
	}
	return b.out.write(path.Clean(pathSkill), data)
}

// writeNetlifyRules writes the static host's rules that change with the site, from the route table local mode
// applies: _redirects (a mirror rule per page built, before the markdown 404) and _headers. netlify.toml keeps
// the rest.
func (b *builder) writeNetlifyRules(pages []pageMeta) error {
	ids := make([]string, len(pages))
	for i, m := range pages {
		ids[i] = m.id
	}
	if err := b.out.write(rules.RedirectsFile, rules.NetlifyRedirects(ids)); err != nil {
		return err
	}
	return b.out.write(rules.HeadersFile, rules.NetlifyHeaders())
}

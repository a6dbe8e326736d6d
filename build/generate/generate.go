// Package generate renders a site folder into a publishable folder: HTML pages, markdown mirrors and their index,
// llms.txt, the sitemap, openapi.json, the MCP manifest, the board's instructions and the static host's rules.
package generate

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"twofold/server/content"
	"twofold/templates"

	"github.com/a-h/templ"
)

// Options says what to build and where.
type Options struct {
	SiteDir string // holds site.yaml, pages/, collusion/, static/ and openapi.json
	OutDir  string // replaced whole, and only when the build succeeds
	BaseURL string // the address the site is built for; empty means site.yaml's baseURL
	Workers int    // pages rendered at once; 0 means two per CPU
	Drafts  bool   // build draft pages too, each with a banner (make dev); a published build leaves them out
}

// Report says what a build wrote.
type Report struct {
	BaseURL  string // the address the site was built for
	Pages    int
	Drafts   []string // pages left out because their front matter says draft: true
	Files    int
	Bytes    int64
	Duration time.Duration
}

// Build renders the site of opts.SiteDir into opts.OutDir. The output is written to a fresh folder beside OutDir
// and swapped in at the end, so a failed build leaves the previous output as it was. Content problems are
// returned as *content.Error values (joined when there are several), each naming its file and line.
func Build(ctx context.Context, opts Options) (*Report, error) {
	_, _, report, err := buildKept(ctx, opts)
	return report, err
}

// buildKept is Build, returning the builder and the pages' metadata too (a Session keeps them).
func buildKept(ctx context.Context, opts Options) (*builder, []pageMeta, *Report, error) {
	start := time.Now()
	b, err := newBuilder(opts)
	if err != nil {
		return nil, nil, nil, err
	}
	parent := filepath.Dir(filepath.Clean(opts.OutDir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, nil, nil, err
	}
	stage, err := os.MkdirTemp(parent, filepath.Base(opts.OutDir)+".building-")
	if err != nil {
		return nil, nil, nil, err
	}
	if err := os.Chmod(stage, 0o755); err != nil {
		return nil, nil, nil, err
	}
	b.out = &writer{root: stage}
	metas, err := b.run(ctx)
	if err != nil {
		os.RemoveAll(stage)
		return nil, nil, nil, err
	}
	if err := swap(stage, opts.OutDir); err != nil {
		os.RemoveAll(stage)
		return nil, nil, nil, err
	}
	return b, metas, &Report{BaseURL: b.site.BaseURL, Pages: len(b.files), Drafts: b.site.Drafts(), Files: int(b.out.files.Load()), Bytes: b.out.bytes.Load(), Duration: time.Since(start)}, nil
}

// swap puts the staged folder in the place of out, removing the old output.
func swap(stage, out string) error {
	old := ""
	if _, err := os.Stat(out); err == nil {
		old = stage + ".old"
		if err := os.Rename(out, old); err != nil {
			return fmt.Errorf("move old output aside: %w", err)
		}
	}
	if err := os.Rename(stage, out); err != nil {
		if old != "" {
			os.Rename(old, out)
		}
		return fmt.Errorf("move new output in place: %w", err)
	}
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}

type builder struct {
	opts    Options
	fsys    fs.FS
	site    *content.Site
	srcBase string // site.yaml's baseURL, which the source files write; see readSource
	files   []content.PageFile
	md      *markdown
	links   *linkChecker
	out     *writer
	modTime *modTimes
	style   string            // stylesheet address, versioned by content
	scripts map[string]string // script file name → its address, versioned by content
	icon    string

	footerLinks []templates.NavLink

	genesisOnce sync.Once
	genesis     []templates.Note
	genesisErr  error
}

// pageMeta is what the site-wide outputs need of a page once it is rendered.
type pageMeta struct {
	id, title, description string
	lastModified           time.Time
}

func newBuilder(opts Options) (*builder, error) {
	if opts.SiteDir == "" || opts.OutDir == "" {
		return nil, errors.New("generate: SiteDir and OutDir are required")
	}
	if opts.Workers <= 0 {
		opts.Workers = 2 * runtime.GOMAXPROCS(0)
	}
	fsys := os.DirFS(opts.SiteDir)
	site, err := content.LoadSite(fsys)
	if err != nil {
		return nil, err
	}
	srcBase := site.BaseURL
	if opts.BaseURL != "" {
		site.BaseURL = opts.BaseURL
		if err := site.Validate(); err != nil {
			return nil, fmt.Errorf("the address to build for: %w", err)
		}
		for i, l := range site.Owner.Links {
			site.Owner.Links[i].URL = string(content.Rebase([]byte(l.URL), srcBase, site.BaseURL))
		}
	}
	var files []content.PageFile
	if opts.Drafts {
		files, err = content.PageFiles(fsys, site) // every page, drafts with their banner
	} else {
		files, _, err = content.Published(fsys, site)
	}
	if err != nil {
		return nil, err
	}
	b := &builder{
		opts:    opts,
		scripts: map[string]string{},
		fsys:    fsys,
		site:    site,
		srcBase: srcBase,
		files:   files,
		md:      newMarkdown(),
		modTime: &modTimes{dir: opts.SiteDir, fsys: fsys},
	}
	return b, nil
}

func (b *builder) run(ctx context.Context) ([]pageMeta, error) {
	var err error
	if b.style, err = b.copyStatic(); err != nil {
		return nil, err
	}
	b.links = newLinkChecker(b.site, b.staticPaths())
	b.footerLinks = b.footer()
	metas, err := b.renderPages(ctx)
	if err != nil {
		return nil, err
	}
	steps := []func([]pageMeta) error{
		b.writeLLMs, b.writeSitemap, b.writeMarkdownIndex, b.writeNotFound,
		b.writeOpenAPI, b.writeMCPManifest, b.writeSkill, b.writeNetlifyRules,
	}
	for _, step := range steps {
		if err := step(metas); err != nil {
			return nil, err
		}
	}
	return metas, nil
}

// renderPages renders every page in parallel and writes the results from one goroutine: on a 2-core machine the
// file system's work on one folder does not go faster with more writers, it only burns the core that renders.
// The writer also streams llms-full.txt in site order as pages arrive. It returns the pages' metadata in site
// order; all content problems are collected and returned together, sorted.
func (b *builder) renderPages(ctx context.Context) ([]pageMeta, error) {
	// Workers take pages in site order, so llms-full.txt never waits long for the next one.
	var next atomic.Int64
	results := make(chan *rendered, 4*b.opts.Workers)
	var wg sync.WaitGroup
	for range min(b.opts.Workers, len(b.files)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= len(b.files) {
					return
				}
				results <- b.render(i)
			}
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()

	metas := make([]pageMeta, len(b.files))
	full, err := b.newFullText()
	var problems []error
	if err != nil {
		problems = append(problems, err)
	}
	pending := map[int]*rendered{}
	for r := range results {
		metas[r.i] = r.meta
		if r.err == nil && len(problems) == 0 {
			r.err = b.writePage(r)
		}
		if r.err != nil {
			problems = append(problems, r.err)
		}
		pending[r.i] = r
		for p := pending[full.next]; p != nil; p = pending[full.next] {
			if len(problems) == 0 {
				if err := full.add(p); err != nil {
					problems = append(problems, err)
				}
			}
			delete(pending, full.next)
			p.release()
			full.next++
		}
	}
	if err := full.close(); err != nil && len(problems) == 0 {
		problems = append(problems, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(problems) > 0 {
		slices.SortStableFunc(problems, func(a, b error) int { return cmp.Compare(a.Error(), b.Error()) })
		return nil, errors.Join(problems...)
	}
	return metas, nil
}

// rendered is one page, rendered and not yet written.
type rendered struct {
	i      int
	meta   pageMeta
	html   *bytes.Buffer
	mirror *bytes.Buffer
	err    error
}

var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func getBuffer() *bytes.Buffer {
	buf := buffers.Get().(*bytes.Buffer)
	buf.Reset()
	return buf
}

func (r *rendered) release() {
	for _, buf := range []*bytes.Buffer{r.html, r.mirror} {
		if buf != nil && buf.Cap() <= 1<<20 {
			buffers.Put(buf)
		}
	}
	r.html, r.mirror = nil, nil
}

func (b *builder) writePage(r *rendered) error {
	id := r.meta.id
	if id != "index" {
		if err := b.out.mkdir(filepath.Join(b.out.root, id)); err != nil {
			return err
		}
	}
	if err := b.out.write(htmlPath(id), r.html.Bytes()); err != nil {
		return err
	}
	return b.out.write("/"+id+".md", r.mirror.Bytes())
}

// render reads, checks and renders page i into fresh buffers.
func (b *builder) render(i int) *rendered {
	r := &rendered{i: i}
	r.meta, r.err = b.renderPage(b.files[i], r)
	return r
}

// readSource reads a source file that is published, whole or rendered: a page, a mirror's stand-in, SKILL.md,
// openapi.json. These write the site's addresses with site.yaml's baseURL, so that they read well in the
// repository; when the build is for another address, each is moved to it here, before links are checked.
func (b *builder) readSource(name string) ([]byte, error) {
	src, err := fs.ReadFile(b.fsys, name)
	if err != nil {
		return nil, err
	}
	return content.Rebase(src, b.srcBase, b.site.BaseURL), nil
}

func (b *builder) renderPage(f content.PageFile, r *rendered) (pageMeta, error) {
	src, err := b.readSource(f.File)
	if err != nil {
		return pageMeta{}, &content.Error{File: f.File, Msg: "cannot read: " + err.Error()}
	}
	p, err := content.ParsePage(f.File, f.ID, src)
	if err != nil {
		return pageMeta{}, err
	}
	if p.LastModified.IsZero() {
		if p.LastModified, err = b.modTime.of(p.Source); err != nil {
			return pageMeta{}, err
		}
	}
	mirror := p
	if p.Mirror != "" {
		if mirror, err = b.loadMirror(p); err != nil {
			return pageMeta{}, err
		}
	}
	body := getBuffer()
	defer buffers.Put(body)
	if err := b.md.render(body, p, b.links); err != nil {
		return pageMeta{}, err
	}
	if mirror != p {
		// The stand-in is published too, so its links must hold as well.
		if err := b.md.render(io.Discard, mirror, b.links); err != nil {
			return pageMeta{}, err
		}
	}
	r.html = getBuffer()
	if err := b.renderHTML(r.html, p, templ.Raw(body.String())); err != nil {
		return pageMeta{}, fmt.Errorf("%s: render: %w", p.Source, err)
	}
	r.mirror = getBuffer()
	content.WriteMirror(r.mirror, b.site, p, mirror)
	return pageMeta{id: p.ID, title: mirror.Title, description: mirror.Description, lastModified: mirror.LastModified}, nil
}

// loadMirror reads the file that stands in for page p in its mirror; it keeps the page's id and address.
func (b *builder) loadMirror(p *content.Page) (*content.Page, error) {
	src, err := b.readSource(p.Mirror)
	if err != nil {
		return nil, &content.Error{File: p.Source, Line: 1, Msg: fmt.Sprintf("mirror %q cannot be read: %v", p.Mirror, errors.Unwrap(err))}
	}
	m, err := content.ParsePage(p.Mirror, p.ID, src)
	if err != nil {
		return nil, err
	}
	if m.LastModified.IsZero() {
		if m.LastModified, err = b.modTime.of(m.Source); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func htmlPath(id string) string {
	if id == "index" {
		return "/index.html"
	}
	return "/" + id + "/index.html"
}

// noContext is the context templ components render with; they do no I/O, so none is needed.
var noContext = context.Background()

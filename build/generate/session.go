package generate

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// Session is a build kept in memory between edits (make dev): when only the text of some pages changed, Update
// renders those pages and the site-wide files that list every page, and writes them into the output in place,
// each file replaced whole; any other change is a full Build. FullText brings llms-full.txt up to date after an
// Update, apart from it, so that the edited page is served first.
type Session struct {
	opts  Options
	b     *builder
	metas []pageMeta
	index map[string]int // a page's source file ("pages/about.md") → its place in the site
	stale bool           // llms-full.txt does not hold the last Update yet
}

// NewSession builds the site in full and keeps what an Update needs.
func NewSession(ctx context.Context, opts Options) (*Session, *Report, error) {
	s := &Session{opts: opts}
	report, err := s.full(ctx)
	return s, report, err
}

func (s *Session) full(ctx context.Context) (*Report, error) {
	b, metas, report, err := buildKept(ctx, s.opts)
	if err != nil {
		return nil, err
	}
	s.b, s.metas, s.stale = b, metas, false
	s.index = make(map[string]int, len(b.files))
	for i, f := range b.files {
		s.index[f.File] = i
	}
	return report, nil
}

// Update brings the output up to date after the source files named (relative to the site folder, slashes) changed.
// A change that is only the text of published pages renders those pages again; anything else (site.yaml, a file
// added or removed, a page's title, description or draft, the board, static files, openapi.json) builds the
// whole site. A failed Update writes nothing: the last good output stays.
func (s *Session) Update(ctx context.Context, changed []string) (*Report, error) {
	if s.b == nil || !s.pagesOnly(changed) {
		return s.full(ctx)
	}
	start := time.Now()
	var done []*rendered
	var problems []error
	for _, name := range changed {
		r := s.b.render(s.index[name])
		if r.err != nil {
			problems = append(problems, r.err)
			continue
		}
		old := s.metas[r.i]
		if r.meta.title != old.title || r.meta.description != old.description {
			r.release()
			for _, d := range done {
				d.release()
			}
			return s.full(ctx) // indexes, navigation and other pages may show them
		}
		done = append(done, r)
	}
	if len(problems) > 0 {
		for _, d := range done {
			d.release()
		}
		return nil, errors.Join(problems...)
	}
	s.b.out = &writer{root: s.opts.OutDir, inPlace: true}
	for _, r := range done {
		err := s.b.writePage(r)
		s.metas[r.i] = r.meta
		r.release()
		if err != nil {
			return nil, err
		}
	}
	// The lists of every page carry each page's lastModified; they are small.
	for _, step := range []func([]pageMeta) error{s.b.writeLLMs, s.b.writeSitemap, s.b.writeMarkdownIndex} {
		if err := step(s.metas); err != nil {
			return nil, err
		}
	}
	s.stale = true
	return &Report{BaseURL: s.b.site.BaseURL, Pages: len(s.b.files), Drafts: s.b.site.Drafts(),
		Files: int(s.b.out.files.Load()), Bytes: s.b.out.bytes.Load(), Duration: time.Since(start)}, nil
}

// pagesOnly reports whether every changed file is the source of a published page whose front matter does not
// say draft (a page becoming a draft leaves the site: a full build).
func (s *Session) pagesOnly(changed []string) bool {
	if len(changed) == 0 {
		return false
	}
	for _, name := range changed {
		if _, ok := s.index[name]; !ok || path.Dir(name) != "pages" {
			return false
		}
		src, err := fs.ReadFile(s.b.fsys, name)
		if err != nil || bytes.Contains(src[:min(len(src), 4096)], []byte("draft")) {
			return false
		}
	}
	return true
}

// FullText writes llms-full.txt again from the mirrors in the output, after Updates; it does nothing when the
// file is up to date.
func (s *Session) FullText() error {
	if !s.stale {
		return nil
	}
	name := filepath.Join(s.opts.OutDir, filepath.FromSlash(pathLLMsFull))
	f, err := os.CreateTemp(filepath.Dir(name), ".tmp-llms-full-*")
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 256<<10)
	s.b.fullTextHeader(w)
	for _, m := range s.metas {
		mirror, err := os.ReadFile(filepath.Join(s.opts.OutDir, m.id+".md"))
		if err != nil {
			f.Close()
			os.Remove(f.Name())
			return err
		}
		s.b.fullTextEntry(w, m.id, mirror)
	}
	err = errors.Join(w.Flush(), f.Chmod(0o644), f.Close())
	if err == nil {
		err = os.Rename(f.Name(), name)
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	s.stale = false
	return nil
}

// Relative turns a changed file's path into the form Update takes: relative to the site folder, with slashes.
func (s *Session) Relative(name string) string {
	rel, err := filepath.Rel(s.opts.SiteDir, name)
	if err != nil || strings.HasPrefix(rel, "..") {
		return name
	}
	return filepath.ToSlash(rel)
}

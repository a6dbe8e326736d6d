// Package content is the content model both programs read: it loads and validates the site's source (site.yaml,
// the pages, the board's genesis notes and files, openapi.json's version) into plain values that the build renders
// and the server answers from, writes the markdown mirrors, and holds the profile and mirrors the MCP tools answer.
package content

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/adrg/frontmatter"
	"gopkg.in/yaml.v3"
)

// Site is site.yaml: who the site is about, where it lives and which pages it has.
type Site struct {
	Title          string    `yaml:"title"`
	Language       string    `yaml:"language"`
	BaseURL        string    `yaml:"baseURL"`
	WritingSiteURL string    `yaml:"writingSiteURL"`
	WritingFeedURL string    `yaml:"writingFeedURL"`
	Owner          Owner     `yaml:"owner"`
	Pages          []string  `yaml:"pages"`
	WritingPage    string    `yaml:"writingPage"` // the page that lists the owner's writing, if one does
	Nav            []NavItem `yaml:"nav"`

	pageSet map[string]bool
	drafts  []string // pages taken out by Published
}

// Owner is the person the site belongs to.
type Owner struct {
	Name     string `yaml:"name" json:"name"`
	Tagline  string `yaml:"tagline" json:"tagline"`
	Bio      string `yaml:"bio" json:"bio"`
	Location string `yaml:"location" json:"location"`
	Links    []Link `yaml:"links" json:"links"`
}

// Link is a named outside address.
type Link struct {
	Name string `yaml:"name" json:"name"`
	URL  string `yaml:"url" json:"url"`
}

// NavItem is one entry of the site navigation; Page is a page id.
type NavItem struct {
	Title string `yaml:"title"`
	Page  string `yaml:"page"`
}

// Page is one markdown page of site/pages.
type Page struct {
	ID           string
	Title        string
	Description  string
	Type         string // look of its Open Graph image: default, portfolio, speaking or article
	LastModified time.Time
	Layout       string // "" for a plain page, "board" for the collusion board
	Mirror       string // site file whose markdown stands in for the page's in its mirror; empty for the page's own
	Draft        bool   // draft: true in the front matter: not published
	keyLines     map[string]int
	Body         []byte // markdown after the front matter
	BodyLine     int    // line of the source file on which Body starts
	Source       string // path of the source file, relative to the site folder
}

// lines is the line of a front-matter key in the page's source, or 1 when it is not given.
func (p *Page) lines(key string) int { return cmp.Or(p.keyLines[key], 1) }

// Path is the page's address on the site: "/" for the index, "/{id}/" for the others.
func (p *Page) Path() string { return PagePath(p.ID) }

// MirrorPath is the address of the page's markdown mirror, "/{id}.md".
func (p *Page) MirrorPath() string { return "/" + p.ID + ".md" }

// PagePath is the address of the page with the given id.
func PagePath(id string) string {
	if id == "index" {
		return "/"
	}
	return "/" + id + "/"
}

// OGTypes are the looks of Open Graph image that /api/og draws.
var OGTypes = []string{"default", "portfolio", "speaking", "article"}

// Error is a content problem, located in a file and, where known, a line.
type Error struct {
	File string // relative to the site folder
	Line int    // 0 when the problem is not on one line
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return e.File + ": " + e.Msg
}

var pageIDPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,63}$`)

// LoadSite reads and checks site.yaml.
func LoadSite(fsys fs.FS) (*Site, error) {
	const file = "site.yaml"
	raw, err := fs.ReadFile(fsys, file)
	if err != nil {
		return nil, &Error{File: file, Msg: "cannot read: " + err.Error()}
	}
	var s Site
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		return nil, yamlError(file, 0, err)
	}
	if err := s.Validate(); err != nil {
		return nil, &Error{File: file, Msg: err.Error()}
	}
	return &s, nil
}

// Validate checks the site's settings, fills defaults and drops a trailing slash from BaseURL.
func (s *Site) Validate() error {
	s.BaseURL = strings.TrimRight(s.BaseURL, "/")
	switch {
	case s.Title == "":
		return errors.New("title is required")
	case s.Owner.Name == "":
		return errors.New("owner.name is required")
	case len(s.Pages) == 0:
		return errors.New("pages must list the site's page ids")
	}
	if s.Language == "" {
		s.Language = "en"
	}
	if err := checkBaseURL(s.BaseURL); err != nil {
		return err
	}
	if s.WritingFeedURL != "" {
		if err := checkAbsURL("writingFeedURL", s.WritingFeedURL); err != nil {
			return err
		}
	}
	seen := make(map[string]bool, len(s.Pages))
	for _, id := range s.Pages {
		if !pageIDPattern.MatchString(id) {
			return fmt.Errorf("pages: %q is not a page id (lower-case letters, digits and dashes)", id)
		}
		if seen[id] {
			return fmt.Errorf("pages: %q is listed twice", id)
		}
		seen[id] = true
	}
	if !seen["index"] {
		return errors.New(`pages must include "index", the home page`)
	}
	s.pageSet = seen
	for _, n := range s.Nav {
		if !seen[n.Page] {
			return fmt.Errorf("nav: %q is not one of the pages", n.Page)
		}
	}
	if s.WritingPage != "" && !seen[s.WritingPage] {
		return fmt.Errorf("writingPage: %q is not one of the pages", s.WritingPage)
	}
	for _, l := range s.Owner.Links {
		if err := checkAbsURL("owner.links "+l.Name, l.URL); err != nil {
			return err
		}
	}
	return nil
}

func checkAbsURL(field, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("%s must be an absolute http(s) URL, got %q", field, raw)
	}
	return nil
}

// checkBaseURL accepts an address the site can live at: scheme, host and an optional path, written as it is
// escaped. Addresses under the base are made by appending a path to it, and Rebase writes it into markdown and
// JSON as it is, so a query, a fragment or a character that needs escaping would break them.
func checkBaseURL(raw string) error {
	if err := checkAbsURL("baseURL", raw); err != nil {
		return err
	}
	u, _ := url.Parse(raw)
	if u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || u.String() != raw {
		return fmt.Errorf("baseURL must be a scheme, a host and an optional path with nothing to escape, got %q", raw)
	}
	return nil
}

// HasPage reports whether id is one of the site's pages.
func (s *Site) HasPage(id string) bool {
	if s.pageSet == nil { // a Site built in code rather than loaded
		return slices.Contains(s.Pages, id)
	}
	return s.pageSet[id]
}

// URL turns a site path into an absolute address.
func (s *Site) URL(p string) string { return s.BaseURL + p }

// Host is the host of BaseURL ("iriscalloway.example"), or BaseURL itself when it has none.
func (s *Site) Host() string {
	if u, err := url.Parse(s.BaseURL); err == nil && u.Host != "" {
		return u.Host
	}
	return s.BaseURL
}

// frontMatter is what a page may say about itself.
type frontMatter struct {
	Title        string    `yaml:"title"`
	Description  string    `yaml:"description"`
	LastModified time.Time `yaml:"lastModified"`
	Type         string    `yaml:"type"`
	Mirror       string    `yaml:"mirror"`
	Layout       string    `yaml:"layout"`
	Draft        bool      `yaml:"draft"`

	lines map[string]int // the line of each key given
}

// frontMatterKeys are the keys a page's front matter may hold, in the order of frontMatter's fields.
var frontMatterKeys = func() []string {
	t := reflect.TypeFor[frontMatter]()
	var keys []string
	for i := range t.NumField() {
		if k := t.Field(i).Tag.Get("yaml"); k != "" {
			keys = append(keys, k)
		}
	}
	return keys
}()

// rawFrontMatter is the text of a front matter block, kept by the frontmatter package for decodeFrontMatter.
type rawFrontMatter []byte

var rawFormat = frontmatter.NewFormat("---", "---", func(data []byte, v any) error {
	*v.(*rawFrontMatter) = append(rawFrontMatter(nil), data...)
	return nil
})

// ParsePage reads one page file. file names the source in errors; id is the page id.
func ParsePage(file, id string, src []byte) (*Page, error) {
	if !bytes.HasPrefix(src, []byte("---")) {
		return nil, &Error{File: file, Line: 1, Msg: "missing front matter: a page starts with a --- block holding title and description"}
	}
	var raw rawFrontMatter
	body, err := frontmatter.MustParse(bytes.NewReader(src), &raw, rawFormat)
	if errors.Is(err, frontmatter.ErrNotFound) {
		return nil, &Error{File: file, Line: 1, Msg: "front matter is not closed by a --- line"}
	}
	if err != nil {
		return nil, &Error{File: file, Line: 1, Msg: "malformed front matter: " + err.Error()}
	}
	var fm frontMatter
	if err := decodeFrontMatter(file, raw, &fm); err != nil {
		return nil, err
	}
	line := 1 + bytes.Count(src[:len(src)-len(body)], []byte("\n"))
	switch {
	case strings.TrimSpace(fm.Title) == "":
		return nil, &Error{File: file, Line: 1, Msg: "front matter has no title"}
	case strings.TrimSpace(fm.Description) == "":
		return nil, &Error{File: file, Line: 1, Msg: "front matter has no description"}
	case fm.Layout != "" && fm.Layout != "board":
		return nil, &Error{File: file, Line: fm.lines["layout"], Msg: fmt.Sprintf("layout %q is not known (leave it out, or use board)", fm.Layout)}
	case fm.Type != "" && !slices.Contains(OGTypes, fm.Type):
		return nil, &Error{File: file, Line: fm.lines["type"], Msg: fmt.Sprintf("type %q is not one of %s", fm.Type, strings.Join(OGTypes, ", "))}
	}
	if fm.Type == "" {
		fm.Type = "default"
	}
	return &Page{
		ID:           id,
		Title:        strings.TrimSpace(fm.Title),
		Description:  strings.TrimSpace(fm.Description),
		Type:         fm.Type,
		Mirror:       fm.Mirror,
		Layout:       fm.Layout,
		LastModified: fm.LastModified.UTC(),
		Draft:        fm.Draft,
		keyLines:     fm.lines,
		Body:         body,
		BodyLine:     line,
		Source:       file,
	}, nil
}

// decodeFrontMatter reads a front matter block (which starts on the file's second line) key by key, so that every
// problem names its line: an unknown key (with the keys there are), a value of the wrong kind, a date that is not one.
func decodeFrontMatter(file string, raw []byte, fm *frontMatter) error {
	const first = 2 // the line after the opening ---
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return yamlError(file, first-1, err)
	}
	if len(doc.Content) == 0 {
		return nil // an empty block: the checks of the fields say what is missing
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		return &Error{File: file, Line: first - 1 + m.Line, Msg: "front matter is not a list of key: value lines"}
	}
	fields := reflect.ValueOf(fm).Elem()
	fm.lines = map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		line := first - 1 + k.Line
		f := slices.Index(frontMatterKeys, k.Value)
		if f < 0 {
			msg := fmt.Sprintf("unknown front-matter key %q (the keys are %s)", k.Value, strings.Join(frontMatterKeys, ", "))
			if near := closest(k.Value, frontMatterKeys); near != "" {
				msg = fmt.Sprintf("unknown front-matter key %q: did you mean %q? (the keys are %s)", k.Value, near, strings.Join(frontMatterKeys, ", "))
			}
			return &Error{File: file, Line: line, Msg: msg}
		}
		if _, seen := fm.lines[k.Value]; seen {
			return &Error{File: file, Line: line, Msg: fmt.Sprintf("%s is given twice", k.Value)}
		}
		fm.lines[k.Value] = line
		if err := v.Decode(fields.Field(f).Addr().Interface()); err != nil {
			return &Error{File: file, Line: first - 1 + v.Line, Msg: valueProblem(k.Value, v)}
		}
	}
	return nil
}

// valueProblem says what is wrong with the value of a front-matter key that did not decode.
func valueProblem(key string, v *yaml.Node) string {
	switch key {
	case "lastModified":
		return fmt.Sprintf("lastModified %q is not a date: write 2026-11-24, or 2026-11-24T09:30:00Z", v.Value)
	case "draft":
		return fmt.Sprintf("draft %q is not true or false", v.Value)
	}
	if v.Kind != yaml.ScalarNode {
		return key + " must be one line of text, not a list or a map"
	}
	return fmt.Sprintf("%s %q is not a valid value", key, v.Value)
}

// closest is the known key a mistyped one most likely meant (at most two edits away, or the same but for case), or "".
func closest(key string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if strings.EqualFold(k, key) {
			return k
		}
		if d := editDistance(strings.ToLower(key), strings.ToLower(k)); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of two short strings.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// yamlError turns a YAML decoder error into an Error; yaml.v2 and v3 both say "line N:", which is kept as the line.
var yamlLine = regexp.MustCompile(`line (\d+):? ?`)

func yamlError(file string, offset int, err error) error {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "yaml: ")
	line := 0
	if m := yamlLine.FindStringSubmatchIndex(msg); m != nil {
		fmt.Sscanf(msg[m[2]:m[3]], "%d", &line)
		msg = msg[:m[0]] + msg[m[1]:]
		if offset > 0 {
			line += offset // the front matter starts after the opening --- line
		}
	}
	return &Error{File: file, Line: line, Msg: "malformed front matter: " + strings.TrimSpace(msg)}
}

// PageFile is a page id with the path of its source, relative to the site folder.
type PageFile struct {
	ID   string
	File string
}

// PageFiles lists the page sources of site/pages in the order site.yaml lists them, without reading them. A file
// whose id is not listed, or a listed page without a file, is an error.
func PageFiles(fsys fs.FS, s *Site) ([]PageFile, error) {
	entries, err := fs.ReadDir(fsys, "pages")
	if err != nil {
		return nil, &Error{File: "pages", Msg: "cannot read: " + err.Error()}
	}
	have := make(map[string]bool, len(entries))
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || path.Ext(name) != ".md" {
			continue
		}
		id := strings.TrimSuffix(name, ".md")
		if slices.Contains(s.drafts, id) {
			continue
		}
		if !s.HasPage(id) {
			return nil, &Error{File: "pages/" + name, Msg: fmt.Sprintf("page id %q is not one of the site's pages (site.yaml pages: %s)", id, listIDs(s.Pages))}
		}
		have[id] = true
	}
	files := make([]PageFile, 0, len(s.Pages))
	for _, id := range s.Pages {
		file := "pages/" + id + ".md"
		if !have[id] {
			return nil, &Error{File: file, Msg: "site.yaml lists this page but the file is missing"}
		}
		files = append(files, PageFile{ID: id, File: file})
	}
	return files, nil
}

// Published lists the page sources to publish, as PageFiles does, and takes the drafts (draft: true in the front
// matter) out of the site: out of its pages and its navigation, so that nothing links to them, lists them or serves
// them. It returns the drafts' ids, which the build reports.
func Published(fsys fs.FS, s *Site) (files []PageFile, drafts []string, err error) {
	all, err := PageFiles(fsys, s)
	if err != nil {
		return nil, nil, err
	}
	// Only a front matter that says draft can be one, and it is at the top of the file: the head of each file is
	// read, several at once (a site of 10,000 pages is 10,000 opens), and the few that say draft are parsed.
	says := make([]bool, len(all))
	errs := make([]error, len(all))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(8, len(all)) {
		wg.Go(func() {
			head := make([]byte, 2048)
			for i := int(next.Add(1) - 1); i < len(all); i = int(next.Add(1) - 1) {
				says[i], errs[i] = saysDraft(fsys, all[i].File, head)
			}
		})
	}
	wg.Wait()
	files = all[:0:0]
	for i, f := range all {
		if errs[i] != nil {
			return nil, nil, &Error{File: f.File, Msg: "cannot read: " + errs[i].Error()}
		}
		if says[i] {
			src, err := fs.ReadFile(fsys, f.File)
			if err != nil {
				return nil, nil, &Error{File: f.File, Msg: "cannot read: " + err.Error()}
			}
			// A page that does not parse is published here: rendering it reports the problem, with every other.
			if p, err := ParsePage(f.File, f.ID, src); err == nil && p.Draft {
				if f.ID == "index" {
					return nil, nil, &Error{File: f.File, Line: p.lines("draft"), Msg: "the home page cannot be a draft"}
				}
				drafts = append(drafts, f.ID)
				continue
			}
		}
		files = append(files, f)
	}
	if len(drafts) > 0 {
		s.unpublish(drafts)
	}
	return files, drafts, nil
}

// saysDraft reports whether the front matter at the top of a file may hold a draft key: the word draft in the head
// read into buf, or a front matter longer than buf (then the whole file is parsed to know).
func saysDraft(fsys fs.FS, name string, buf []byte) (bool, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return false, err
	}
	defer f.Close()
	n, err := io.ReadFull(f, buf)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return false, err
	}
	head := buf[:n]
	if bytes.Contains(head, []byte("draft")) {
		return true, nil
	}
	closed := bytes.Index(head[min(3, len(head)):], []byte("\n---")) >= 0
	return !closed && n == len(buf), nil
}

// unpublish takes pages out of the site, its navigation and its writing page.
func (s *Site) unpublish(ids []string) {
	gone := func(id string) bool { return slices.Contains(ids, id) }
	s.Pages = slices.DeleteFunc(slices.Clone(s.Pages), gone)
	s.Nav = slices.DeleteFunc(slices.Clone(s.Nav), func(n NavItem) bool { return gone(n.Page) })
	if gone(s.WritingPage) {
		s.WritingPage = ""
	}
	for _, id := range ids {
		delete(s.pageSet, id)
	}
	s.drafts = append(s.drafts, ids...)
}

// Drafts are the pages Published took out of the site.
func (s *Site) Drafts() []string { return s.drafts }

func listIDs(ids []string) string {
	if len(ids) > 12 {
		return strings.Join(ids[:12], ", ") + fmt.Sprintf(" and %d more", len(ids)-12)
	}
	return strings.Join(ids, ", ")
}

// LoadPages reads and parses every page, in the order site.yaml lists them.
func LoadPages(fsys fs.FS, s *Site) ([]*Page, error) {
	files, _, err := Published(fsys, s)
	if err != nil {
		return nil, err
	}
	pages := make([]*Page, 0, len(files))
	for _, f := range files {
		src, err := fs.ReadFile(fsys, f.File)
		if err != nil {
			return nil, &Error{File: f.File, Msg: "cannot read: " + err.Error()}
		}
		p, err := ParsePage(f.File, f.ID, src)
		if err != nil {
			return nil, err
		}
		pages = append(pages, p)
	}
	return pages, nil
}

// APIVersion is the version of the public API: info.version of the site's openapi.json, the one place it is
// written. The MCP manifest, the MCP server's serverInfo and /api/health give the same.
func APIVersion(fsys fs.FS) (string, error) {
	data, err := fs.ReadFile(fsys, "openapi.json")
	if err != nil {
		return "", &Error{File: "openapi.json", Msg: "cannot read: " + err.Error()}
	}
	var doc struct {
		Info struct {
			Version string `json:"version"`
		} `json:"info"`
	}
	if err := json.Unmarshal(data, &doc); err != nil || doc.Info.Version == "" {
		return "", &Error{File: "openapi.json", Msg: "no info.version: the API's version is written there"}
	}
	return doc.Info.Version, nil
}

package generate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"strings"

	"twofold/server/content"
	"twofold/server/paths"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// markdown renders page bodies: GitHub-flavoured, with heading ids and typographic quotes. Raw HTML in a page is
// left out, as goldmark does by default, so the HTML it produces is safe to place in a template.
type markdown struct{ gm goldmark.Markdown }

func newMarkdown() *markdown {
	return &markdown{gm: goldmark.New(
		goldmark.WithExtensions(extension.GFM, extension.Typographer),
		goldmark.WithParserOptions(parser.WithAutoHeadingID()),
	)}
}

// render parses p's body, checks its links and writes its HTML to w.
func (m *markdown) render(w io.Writer, p *content.Page, links *linkChecker) error {
	doc := m.gm.Parser().Parse(text.NewReader(p.Body))
	if err := links.check(p, doc); err != nil {
		return err
	}
	return m.gm.Renderer().Render(w, p.Body, doc)
}

// linkChecker knows every address the built site answers, so that a link to a page that does not exist fails
// the build instead of a reader.
type linkChecker struct {
	host  string // the site's own host: absolute links to it are checked too
	known map[string]bool
	pages map[string]bool
}

// apiPaths are the dynamic routes a page may link to; a link under /api/ that is none of them is a mistake.
var apiPaths = paths.Linkable

func newLinkChecker(s *content.Site, files []string) *linkChecker {
	c := &linkChecker{known: map[string]bool{}, pages: map[string]bool{}}
	if u, err := url.Parse(s.BaseURL); err == nil {
		c.host = u.Host
	}
	for _, id := range s.Pages {
		c.pages[id] = true
		c.known[content.PagePath(id)] = true
		c.known["/"+id] = true
		c.known["/"+id+".md"] = true
	}
	for _, f := range files {
		c.known[f] = true
	}
	return c
}

// check reports every link of the page to an address of this site that does not exist, one error per link.
func (c *linkChecker) check(p *content.Page, doc ast.Node) error {
	var problems []error
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		var dest string
		switch l := n.(type) {
		case *ast.Link:
			dest = string(l.Destination)
		case *ast.Image:
			dest = string(l.Destination)
		default:
			return ast.WalkContinue, nil
		}
		if target, internal := c.resolve(p, dest); internal && !c.exists(target) {
			problems = append(problems, &content.Error{
				File: p.Source,
				Line: p.BodyLine + lineWithin(n, p.Body),
				Msg:  fmt.Sprintf("link to %q, which is not a page or file of this site", dest),
			})
		}
		return ast.WalkContinue, nil
	})
	return errors.Join(problems...)
}

// resolve turns a link destination into a path of this site; internal is false for links elsewhere.
func (c *linkChecker) resolve(p *content.Page, dest string) (target string, internal bool) {
	u, err := url.Parse(dest)
	if err != nil {
		return dest, true // a link that does not parse is broken wherever it points
	}
	switch {
	case u.Scheme == "" && u.Host == "":
		if u.Path == "" {
			return "", false // a fragment or query on the page itself
		}
		if strings.HasPrefix(u.Path, "/") {
			return u.Path, true
		}
		resolved := path.Join(path.Dir(p.Path()+"x"), u.Path)
		if strings.HasSuffix(u.Path, "/") {
			resolved += "/"
		}
		return resolved, true
	case (u.Scheme == "http" || u.Scheme == "https") && u.Host == c.host:
		if u.Path == "" {
			return "/", true
		}
		return u.Path, true
	}
	return "", false
}

func (c *linkChecker) exists(target string) bool {
	if c.known[target] {
		return true
	}
	if rest, ok := strings.CutPrefix(target, "/api/md/"); ok {
		return c.pages[strings.TrimSuffix(rest, "/")]
	}
	for _, api := range apiPaths {
		if target == api || (strings.HasSuffix(api, "/") && strings.HasPrefix(target, api)) ||
			strings.HasPrefix(target, api+"/") {
			return true
		}
	}
	return false
}

// lineWithin is the 0-based line of src on which node n starts, found through its first text.
func lineWithin(n ast.Node, src []byte) int {
	off := -1
	ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if t, ok := c.(*ast.Text); ok && entering {
			off = t.Segment.Start
			return ast.WalkStop, nil
		}
		return ast.WalkContinue, nil
	})
	for p := n.Parent(); off < 0 && p != nil; p = p.Parent() {
		if p.Type() == ast.TypeBlock && p.Lines().Len() > 0 {
			off = p.Lines().At(0).Start
		}
	}
	if off < 0 || off > len(src) {
		return 0
	}
	return bytes.Count(src[:off], []byte("\n"))
}

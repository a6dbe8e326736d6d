package content

// The site's own content as data for the MCP tools: the owner's profile and each page's markdown mirror, the same
// markdown /api/md/{page} serves.

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"twofold/server/errcode"
	"twofold/server/paths"
)

// Mirrors holds the profile and the mirrors, read once.
type Mirrors struct {
	site    *Site
	profile map[string]any
	mirrors map[string][]byte
}

// LoadMirrors reads the site from fsys (the embedded site folder). Mirrors come from publicDir, the built site, when it
// is set, so that they are byte for byte what the static host serves; otherwise they are rendered from fsys, with
// lastModified from the front matter (zero when a page does not say), and site.yaml's address moved to the site's
// BaseURL.
func LoadMirrors(fsys fs.FS, site *Site, publicDir string) (*Mirrors, error) {
	list, err := LoadPages(fsys, site)
	if err != nil {
		return nil, err
	}
	// The sources name site.yaml's address; a server whose BASE_URL is another (a preview, a fork) moves them to
	// it, as the build does.
	shipped, err := LoadSite(fsys)
	if err != nil {
		return nil, err
	}
	p := &Mirrors{site: site, mirrors: map[string][]byte{}}
	var entries []map[string]string
	for _, page := range list {
		standIn := page
		if page.Mirror != "" {
			src, err := fs.ReadFile(fsys, page.Mirror)
			if err != nil {
				return nil, err
			}
			if standIn, err = ParsePage(page.Mirror, page.ID, src); err != nil {
				return nil, err
			}
		}
		var md []byte
		if publicDir != "" {
			md, _ = os.ReadFile(filepath.Join(publicDir, page.ID+".md"))
		}
		if md == nil {
			var b bytes.Buffer
			WriteMirror(&b, site, page, standIn)
			md = Rebase(b.Bytes(), shipped.BaseURL, site.BaseURL)
		}
		p.mirrors[page.ID] = md
		entries = append(entries, map[string]string{
			"id": page.ID, "title": standIn.Title, "description": standIn.Description,
			"url": site.URL(page.Path()), "mirror": site.URL(page.MirrorPath()),
		})
	}
	o := site.Owner
	p.profile = map[string]any{
		"name": o.Name, "tagline": o.Tagline, "bio": o.Bio, "location": o.Location, "links": o.Links,
		"site": site.BaseURL + "/", "pages": entries,
		"machineReadable": map[string]string{
			"llms": site.URL(paths.LLMs), "openapi": site.URL(paths.OpenAPI), "mcpManifest": site.URL(paths.Manifest),
			"markdownIndex": site.URL(paths.MDIndex), "boardInstructions": site.URL(paths.BoardDocs),
		},
	}
	return p, nil
}

// Profile is get_profile's data.
func (p *Mirrors) Profile() any { return p.profile }

// Page is get_page's data. Returns NOT_FOUND for an unknown page.
func (p *Mirrors) Page(id string) (map[string]any, error) {
	md, ok := p.mirrors[id]
	if !ok {
		return nil, errcode.Errorf(errcode.NotFound, "page ids: "+strings.Join(p.site.Pages, ", "), "no page %q", id)
	}
	return map[string]any{"page": id, "url": p.site.URL(PagePath(id)), "mirror": p.site.URL("/" + id + ".md"), "markdown": string(md)}, nil
}

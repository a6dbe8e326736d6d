// Command page adds a page to the site: its markdown file in pages/ and its id at the end of site.yaml's pages.
// That is all a page needs; the build writes its HTML, its mirror and its static host rules.
//
//	go run ./build/page -name now -title "Now" [-description "…"] [-site site]
//
// make page NAME=now TITLE="Now" runs it.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing/fstest"

	"twofold/server/content"

	"gopkg.in/yaml.v3"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run is the whole program: it parses args, adds the page and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	var p newPage
	flags := flag.NewFlagSet("page", flag.ContinueOnError)
	flags.SetOutput(stderr)
	site := flags.String("site", "site", "folder with site.yaml and pages/")
	flags.StringVar(&p.id, "name", "", `the page's id: its file pages/{name}.md and its address /{name}/ (required)`)
	flags.StringVar(&p.title, "title", "", "the page's title (required)")
	flags.StringVar(&p.description, "description", "", "one or two sentences for meta tags, llms.txt and the markdown index (default: a placeholder to replace)")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(stderr, "page: unexpected argument %q (quote a title of several words)\n", flags.Arg(0))
		return 2
	}
	file, err := p.add(*site)
	if err != nil {
		fmt.Fprintln(stderr, "page:", err)
		return 1
	}
	fmt.Fprintf(stdout, "added %s and %q at the end of pages: in %s\n", file, p.id, filepath.Join(*site, siteFile))
	fmt.Fprintf(stdout, "next: write the page (and its description) in %s; list it under nav: in site.yaml to link it from the menu;\n", file)
	fmt.Fprintf(stdout, "then make run and open http://localhost:8080%s (its markdown: /api/md/%s)\n", content.PagePath(p.id), p.id)
	return 0
}

const siteFile = "site.yaml"

// newPage is the page to add.
type newPage struct {
	id, title, description string
}

// reserved are ids whose address /{id}/ the site already uses for something else.
var reserved = map[string]string{
	"api":    "the API's addresses start with /api/",
	"md":     "/md/ holds the markdown index and the markdown 404",
	"static": "/static/ holds the site's stylesheet, scripts and icon",
}

// add writes the page's file and its line in site.yaml, and returns the file's path. It refuses a name that is
// not a page id, one the site has already, and one whose address the site uses for something else; on any error
// it leaves the site as it was.
func (p *newPage) add(siteDir string) (string, error) {
	p.id, p.title = strings.TrimSpace(p.id), strings.TrimSpace(p.title)
	switch {
	case p.id == "":
		return "", errors.New("-name is required: the page's id, like now or reading-list (make page NAME=now TITLE=\"Now\")")
	case p.title == "":
		return "", errors.New("-title is required: the page's title, like \"Now\" (make page NAME=now TITLE=\"Now\")")
	case strings.ContainsAny(p.title+p.description, "\r\n"):
		return "", errors.New("the title and the description are one line each")
	}
	fsys := os.DirFS(siteDir)
	site, err := content.LoadSite(fsys)
	if err != nil {
		return "", fmt.Errorf("%s: %w", siteDir, err)
	}
	if site.HasPage(p.id) {
		return "", fmt.Errorf("%q is a page already: it is listed in %s's pages", p.id, siteFile)
	}
	if why, ok := reserved[p.id]; ok {
		return "", fmt.Errorf("%q cannot be a page: %s", p.id, why)
	}
	if !validID(site, p.id) {
		return "", fmt.Errorf("%q is not a page name: use lower-case letters, digits and dashes, starting with a letter or digit, at most 64 (like now or reading-list)", p.id)
	}
	rel := "pages/" + p.id + ".md"
	if _, err := fs.Stat(fsys, rel); err == nil {
		return "", fmt.Errorf("%s exists already (a page file not listed in %s: add %q to its pages, or choose another name)", filepath.Join(siteDir, rel), siteFile, p.id)
	}

	raw, err := fs.ReadFile(fsys, siteFile)
	if err != nil {
		return "", err
	}
	edited, err := addToPages(raw, p.id)
	if err == nil {
		err = checkAdded(edited, site.Pages, p.id)
	}
	if err != nil {
		return "", fmt.Errorf("%s: %v; add the line \"  - %s\" at the end of its pages: list by hand", siteFile, err, p.id)
	}

	file := filepath.Join(siteDir, filepath.FromSlash(rel))
	if err := writeNew(file, p.source()); err != nil {
		return "", err
	}
	if err := replace(filepath.Join(siteDir, siteFile), edited); err != nil {
		os.Remove(file)
		return "", err
	}
	return file, nil
}

// validID reports whether id is a page id, by content's own rule: the site with the page added must validate.
func validID(site *content.Site, id string) bool {
	s := *site
	s.Pages = append(slices.Clip(site.Pages), id)
	return s.Validate() == nil
}

// source is the page's markdown: front matter with its title and description, and a first paragraph to replace.
func (p *newPage) source() []byte {
	description := p.description
	if description == "" {
		description = "What " + p.title + " is about, in one or two sentences: search results, llms.txt and the markdown index show them."
	}
	fm, _ := yaml.Marshal(struct {
		Title       string `yaml:"title"`
		Description string `yaml:"description"`
	}{p.title, description})
	var b bytes.Buffer
	b.WriteString("---\n")
	b.Write(fm)
	b.WriteString("---\n\n")
	b.WriteString("Write the page here, in markdown. Start headings at `##`: the title above is the page's heading.\n")
	return b.Bytes()
}

var (
	pagesKey  = regexp.MustCompile(`^pages:\s*(#.*)?$`)
	pagesFlow = regexp.MustCompile(`^pages:\s*\[(.*)\]\s*(#.*)?$`)
	listItem  = regexp.MustCompile(`^(\s*-\s+)\S`)
)

// addToPages returns site.yaml with id added at the end of its pages list, written as the list's other items
// are, so that the file keeps its comments and layout.
func addToPages(raw []byte, id string) ([]byte, error) {
	lines := strings.SplitAfter(string(raw), "\n")
	for i, line := range lines {
		text := strings.TrimRight(line, "\r\n")
		if m := pagesFlow.FindStringSubmatchIndex(text); m != nil {
			end := m[3] // the end of the list's items, before "]"
			lines[i] = text[:end] + ", " + id + text[end:] + line[len(text):]
			return []byte(strings.Join(lines, "")), nil
		}
		if !pagesKey.MatchString(text) {
			continue
		}
		last, prefix := -1, ""
		for j := i + 1; j < len(lines); j++ {
			item := strings.TrimRight(lines[j], "\r\n")
			trimmed := strings.TrimSpace(item)
			if m := listItem.FindStringSubmatch(item); m != nil {
				last, prefix = j, m[1]
				continue
			}
			if trimmed == "" || strings.HasPrefix(trimmed, "#") {
				continue
			}
			if item[0] != ' ' && item[0] != '\t' {
				break // the next key
			}
		}
		if last < 0 {
			return nil, errors.New("its pages: list has no items to add to")
		}
		newline := "\n"
		if strings.HasSuffix(lines[last], "\r\n") {
			newline = "\r\n"
		}
		if !strings.HasSuffix(lines[last], "\n") {
			lines[last] += newline
		}
		added := slices.Insert(lines, last+1, prefix+id+newline)
		return []byte(strings.Join(added, "")), nil
	}
	return nil, errors.New("it has no pages: list")
}

// checkAdded reads the edited site.yaml as the build will and checks that its pages are the old ones and id.
func checkAdded(edited []byte, old []string, id string) error {
	site, err := content.LoadSite(fstest.MapFS{siteFile: {Data: edited}})
	if err != nil {
		return fmt.Errorf("the edit would break it (%v)", err)
	}
	if want := append(slices.Clip(old), id); !slices.Equal(site.Pages, want) {
		return fmt.Errorf("the edit would make its pages %v", site.Pages)
	}
	return nil
}

// writeNew creates file with data; it fails if the file exists.
func writeNew(file string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(file)
		return err
	}
	return f.Close()
}

// replace writes data over file through a temporary file and a rename, keeping the file's mode, so that an
// interrupted write never leaves half a site.yaml.
func replace(file string, data []byte) error {
	fi, err := os.Stat(file)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(fi.Mode().Perm()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), file)
}

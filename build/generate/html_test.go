package generate

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	tm, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

// checkHTML parses a page as a browser would and checks what every page must have: a language, a title and a
// description, canonical, Open Graph and Twitter tags, the markdown alternate, landmarks, one h1, and a footer
// that links llms.txt, openapi.json and the board.
func checkHTML(t *testing.T, name string, src []byte) {
	t.Helper()
	if !bytes.HasPrefix(src, []byte("<!doctype html>")) {
		t.Errorf("%s: no doctype", name)
	}
	doc, err := html.Parse(bytes.NewReader(src))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	count := map[string]int{}
	meta := map[string]string{}
	links := map[string]string{}
	var footerLinks []string
	var walk func(n *html.Node, inFooter bool)
	walk = func(n *html.Node, inFooter bool) {
		if n.Type == html.ElementNode {
			count[n.Data]++
			a := map[string]string{}
			for _, at := range n.Attr {
				a[at.Key] = at.Val
			}
			switch n.Data {
			case "html":
				if a["lang"] == "" {
					t.Errorf("%s: <html> has no lang", name)
				}
			case "meta":
				if k := a["name"] + a["property"]; k != "" {
					meta[k] = a["content"]
				}
			case "link":
				links[a["rel"]+" "+a["type"]] = a["href"]
			case "script":
				// Only the site's own files, deferred, never inline: the CSP allows nothing else.
				if !strings.HasPrefix(a["src"], "/static/") || !strings.Contains(a["src"], ".js?v=") || n.FirstChild != nil {
					t.Errorf("%s: script %q is not a deferred file of /static/", name, a["src"])
				}
				if _, deferred := a["defer"]; !deferred {
					t.Errorf("%s: script %q is not deferred", name, a["src"])
				}
			case "footer":
				inFooter = true
			case "a":
				if inFooter {
					footerLinks = append(footerLinks, a["href"])
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inFooter)
		}
	}
	walk(doc, false)
	for _, el := range []string{"header", "nav", "main", "footer", "title"} {
		if count[el] == 0 {
			t.Errorf("%s: no <%s>", name, el)
		}
	}
	if count["main"] != 1 || count["h1"] != 1 {
		t.Errorf("%s: %d <main> and %d <h1>, want one each", name, count["main"], count["h1"])
	}
	if count["form"] != 0 || count["input"] != 0 || count["textarea"] != 0 || count["script"] > 1 {
		t.Errorf("%s: has a form, an input field, or more than one script", name)
	}
	for _, k := range []string{"description", "og:title", "og:description", "og:url", "og:type", "twitter:card", "twitter:image", "viewport"} {
		if meta[k] == "" {
			t.Errorf("%s: no %s meta", name, k)
		}
	}
	if !strings.HasPrefix(meta["og:image"], "https://iriscalloway.example/api/og?") || !strings.Contains(meta["og:image"], "title=") || !strings.Contains(meta["og:image"], "type=") {
		t.Errorf("%s: og:image = %q", name, meta["og:image"])
	}
	if !strings.HasPrefix(links["canonical "], "https://iriscalloway.example/") {
		t.Errorf("%s: canonical = %q", name, links["canonical "])
	}
	if name != "404.html" && !strings.HasSuffix(links["alternate text/markdown"], ".md") {
		t.Errorf("%s: no markdown alternate", name)
	}
	for _, want := range []string{"/llms.txt", "/openapi.json", "/collusion/"} {
		if !strings.Contains(strings.Join(footerLinks, " "), want) {
			t.Errorf("%s: footer does not link %s", name, want)
		}
	}
}

// TestValidHTML runs every page of the real site through HTML Tidy (HTML5-aware since 5.0), failing on errors.
// Tidy 5.6 does not know ARIA 1.1's aria-current, so that warning, and only that one, is accepted. CI installs
// tidy (.ci/setup); elsewhere the test is skipped when tidy is missing, and under CI=true a missing tidy fails.
func TestValidHTML(t *testing.T) {
	tidy, err := exec.LookPath("tidy")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tidy is not installed; .ci/setup installs it")
		}
		t.Skip("tidy is not installed (apt-get install tidy)")
	}
	out := build(t, "../../site")
	pages, _ := filepath.Glob(filepath.Join(out, "*", "index.html"))
	pages = append(pages, filepath.Join(out, "index.html"), filepath.Join(out, "404.html"))
	for _, page := range pages {
		cmd := exec.Command(tidy, "-errors", "-quiet", "--drop-empty-elements", "no", page)
		report, _ := cmd.CombinedOutput()
		for _, line := range strings.Split(strings.TrimSpace(string(report)), "\n") {
			if line != "" && !strings.Contains(line, `proprietary attribute "aria-current"`) {
				t.Errorf("%s: %s", strings.TrimPrefix(page, out), line)
			}
		}
		if cmd.ProcessState.ExitCode() > 1 {
			t.Errorf("%s: tidy found errors", strings.TrimPrefix(page, out))
		}
	}
	if len(pages) != 12 {
		t.Errorf("checked %d pages, want 12", len(pages))
	}
}

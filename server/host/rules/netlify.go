package rules

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
)

// The files of public/ that configure Netlify. Netlify reads both before netlify.toml: _redirects' rules are
// applied before netlify.toml's, and _headers' rules beside netlify.toml's (which sets none).
const (
	RedirectsFile = "/_redirects"
	HeadersFile   = "/_headers"
)

// NetlifyRedirects is the _redirects file of a site with the given page ids: every Static rule of the table, in
// order and forced. The Dynamic rules are netlify.toml's, because a _redirects line cannot sign a proxy.
func NetlifyRedirects(pages []string) []byte {
	var rows [][3]string
	width := [2]int{}
	for _, r := range Redirects(pages) {
		if r.Kind != Static {
			continue
		}
		row := [3]string{r.From, r.To, strconv.Itoa(r.Status) + "!"}
		rows = append(rows, row)
		width[0], width[1] = max(width[0], len(row[0])), max(width[1], len(row[1]))
	}
	var b bytes.Buffer
	b.WriteString("# Netlify's redirect rules for this site, written by the build from the route table (server/host/rules).\n")
	b.WriteString("# Netlify applies them before netlify.toml's, which proxies the API to its server. Do not edit: rebuild.\n")
	for _, row := range rows {
		fmt.Fprintf(&b, "%-*s  %-*s  %s\n", width[0], row[0], width[1], row[1], row[2])
	}
	return b.Bytes()
}

// NetlifyHeaders is the _headers file: every rule of the header table, in order, its headers sorted by name.
func NetlifyHeaders() []byte {
	var b bytes.Buffer
	b.WriteString("# Netlify's header rules for the files of this site, written by the build from the route table\n")
	b.WriteString("# (server/host/rules). Do not edit: rebuild.\n")
	for _, h := range Headers() {
		b.WriteString(h.For + "\n")
		names := make([]string, 0, len(h.Values))
		for name := range h.Values {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			fmt.Fprintf(&b, "  %s: %s\n", name, h.Values[name])
		}
	}
	return b.Bytes()
}
